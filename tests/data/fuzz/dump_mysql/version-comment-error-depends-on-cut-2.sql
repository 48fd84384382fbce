CREATE TABLE public/*M!100100  integer NOT NULL,
    a text,
    b bytea
);
COPY public.t (id, tea
);
COPY public.t (id, tea
);
COPY public.t (id, tea
);
*/PY public.t (id, tea
);
COPY public.t (id, a, b) FROM stdin;
1	cafÃ©	\bytea
);
COPY pub�ic.t (id, a, b) FROM stdin;
1	cafÃ©	\bytea
);
COPY pubDELIMITER ;;
lic.t (id, a, b) FROM stdin;
1	cafÃ©	\bytea
);
C