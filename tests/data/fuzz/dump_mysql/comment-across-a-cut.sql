-- a dump
/* a comment
 with no star before its end */
SELECT 1;
