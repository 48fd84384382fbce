/* a comment */
/*!50003 CREATE*/ /*!50003 TRIGGER x BEFORE INSERT ON t FORCOPY t (id, a) FROM stdin;
 */;;
CREATE