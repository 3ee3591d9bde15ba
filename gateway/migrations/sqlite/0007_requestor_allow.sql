-- Per-requestor IP allow-lists: the networks a requestor may call from (a CIDR per row, e.g.
-- 203.0.113.0/24, 2001:db8::/48, or one address as /32 or /128). A requestor without rows may
-- call from any address (subject to the gateway's own --allow). Set by import (`allow`) and by
-- `ota-gateway requestor allow`; both bump content_version, so every gateway reloads them.
CREATE TABLE requestor_allow (
    requestor_id TEXT NOT NULL REFERENCES requestor(id) ON DELETE CASCADE,
    network      TEXT NOT NULL CHECK (length(network) BETWEEN 2 AND 64),
    PRIMARY KEY (requestor_id, network)
) STRICT;
