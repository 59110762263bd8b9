#!/bin/sh
# First start of the PostgreSQL container: a login and database for gov and
# one for Vault's storage (with the table Vault's postgresql backend needs).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v gov_pw="$POSTGRES_GOV_PASSWORD" -v vault_pw="$POSTGRES_VAULT_PASSWORD" <<'SQL'
create role gov login password :'gov_pw';
create database gov owner gov;
create role vault login password :'vault_pw';
create database vault owner vault;
SQL
psql -v ON_ERROR_STOP=1 --username vault --dbname vault <<'SQL'
create table vault_kv_store (
  parent_path text collate "C" not null,
  path        text collate "C",
  key         text collate "C",
  value       bytea,
  constraint pkey primary key (path, key)
);
create index parent_path_idx on vault_kv_store (parent_path);
create table vault_ha_locks (
  ha_key      text collate "C" not null,
  ha_identity text collate "C" not null,
  ha_value    text collate "C",
  valid_until timestamp with time zone not null,
  constraint ha_key primary key (ha_key)
);
SQL
