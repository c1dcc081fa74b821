-- Runs once, when the PostgreSQL data volume is first initialised (as the superuser).
-- Passwords come from the container environment (psql \getenv); docker-compose.yml sets them.
\set ON_ERROR_STOP on
\getenv relaybox_password RELAYBOX_DB_PASSWORD
\getenv temporal_password TEMPORAL_DB_PASSWORD

-- Relaybox: its own user and database; Flyway creates the tables at startup.
CREATE ROLE relaybox LOGIN PASSWORD :'relaybox_password';
CREATE DATABASE relaybox OWNER relaybox;

-- Temporal: persistence and visibility databases, schemas applied by docker/temporal/setup-schema.sh.
CREATE ROLE temporal LOGIN PASSWORD :'temporal_password';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;

-- The visibility schema indexes with btree_gin; create it here so the schema tool needs no superuser.
\connect temporal_visibility
CREATE EXTENSION IF NOT EXISTS btree_gin;
