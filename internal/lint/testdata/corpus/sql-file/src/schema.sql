create table acme_sessions (id text primary key);
