//! Security-sensitive content: code that turns off certificate checks.
//!
//! **TLS verification off**: `curl -k`/`--insecure`, `wget --no-check-certificate`,
//! `verify=False`, `rejectUnauthorized: false`, `NODE_TLS_REJECT_UNAUTHORIZED=0`,
//! `InsecureSkipVerify: true`, `ssl._create_unverified_context`, `CERT_NONE`,
//! `check_hostname = False`, `StrictHostKeyChecking=no`, `http.sslVerify=false`,
//! `GIT_SSL_NO_VERIFY`, `--insecure-skip-tls-verify`.

/// Certificate and host-key checks turned off (compact, lowercase).
pub(super) const TLS_OFF: &[(&str, &str)] = &[
    ("verify=false", "verify=False"),
    ("rejectunauthorized:false", "rejectUnauthorized: false"),
    (
        "node_tls_reject_unauthorized=0",
        "NODE_TLS_REJECT_UNAUTHORIZED=0",
    ),
    (
        "node_tls_reject_unauthorized='0'",
        "NODE_TLS_REJECT_UNAUTHORIZED=0",
    ),
    (
        "node_tls_reject_unauthorized=\"0\"",
        "NODE_TLS_REJECT_UNAUTHORIZED=0",
    ),
    (
        "node_tls_reject_unauthorized:'0'",
        "NODE_TLS_REJECT_UNAUTHORIZED=0",
    ),
    (
        "node_tls_reject_unauthorized:\"0\"",
        "NODE_TLS_REJECT_UNAUTHORIZED=0",
    ),
    ("insecureskipverify:true", "InsecureSkipVerify: true"),
    (
        "_create_unverified_context",
        "ssl._create_unverified_context",
    ),
    ("cert_none", "ssl.CERT_NONE"),
    ("check_hostname=false", "check_hostname = False"),
    ("stricthostkeychecking=no", "StrictHostKeyChecking=no"),
    ("sslverify=false", "http.sslVerify=false"),
    ("verify_ssl=false", "verify_ssl = false"),
    ("verify_ssl:false", "verify_ssl: false"),
    ("ssl_verify=false", "ssl_verify = false"),
    ("ssl_verify:false", "ssl_verify: false"),
    ("insecure_skip_verify:true", "insecure_skip_verify: true"),
    ("git_ssl_no_verify", "GIT_SSL_NO_VERIFY"),
    ("insecure-skip-tls-verify", "--insecure-skip-tls-verify"),
];
