# Vault for gov: not dev mode. Storage in PostgreSQL (database `vault`, backed
# up daily with the service database), TLS with a certificate of the internal
# CA. Unsealed by deploy/vault/init.sh (trial) or by operators / auto-unseal.
# The storage connection URL comes from VAULT_PG_CONNECTION_URL (it holds a password).
storage "postgresql" {
  ha_enabled = "true"
}

listener "tcp" {
  address       = "0.0.0.0:8200"
  tls_cert_file = "/vault/tls/vault.crt"
  tls_key_file  = "/vault/tls/vault.key"
  tls_min_version = "tls12"
}

api_addr      = "https://vault:8200"
cluster_addr  = "https://vault:8201"
# The container drops every capability (no IPC_LOCK); swap is off on the hosts instead.
disable_mlock = true
ui            = false
