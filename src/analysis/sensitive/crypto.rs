//! Security-sensitive content: code that handles keys and ciphers.
//!
//! **crypto**: key generation and ciphers: `ssh-keygen`, `openssl genrsa|genpkey|req|x509|enc|…`,
//! `gpg --gen-key|--encrypt|--decrypt|--sign|--import|…`, `age`, `keytool`, `certbot`;
//! libraries (`cryptography`, `Crypto`, `nacl`, `OpenSSL`, `rsa`, `node-forge`, `crypto-js`,
//! `openpgp`, Go `crypto/aes|cipher|rsa|ecdsa|ed25519|hmac|tls|x509`, `golang.org/x/crypto`,
//! Python `hmac`) and Node's `createCipheriv`, `createSign`, `createHmac`, `generateKeyPair`,
//! `crypto.subtle`. Checksums are not crypto here: `hashlib.sha256`, `createHash`,
//! `crypto/sha256`, `sha256sum` are how files are compared.

/// `openssl` subcommands that make or use keys and certificates, or encrypt.
pub(super) const OPENSSL_KEY_COMMANDS: &[&str] = &[
    "genrsa", "genpkey", "gendsa", "req", "x509", "rsa", "ec", "ecparam", "pkcs12", "pkcs8", "enc",
    "rsautl", "pkeyutl", "smime", "cms", "ca", "pkey",
];

pub(super) const GPG_KEY_OPTIONS: &[&str] = &[
    "--gen-key",
    "--generate-key",
    "--full-generate-key",
    "--full-gen-key",
    "--quick-gen-key",
    "--quick-generate-key",
    "--encrypt",
    "-e",
    "--decrypt",
    "-d",
    "--sign",
    "-s",
    "--clearsign",
    "--clear-sign",
    "--detach-sign",
    "-b",
    "--symmetric",
    "-c",
    "--import",
    "--export-secret-keys",
];

/// Node `crypto` calls that use keys or ciphers (not `createHash`, `randomUUID`).
pub(super) const NODE_CRYPTO_CALLS: &[&str] = &[
    "createCipheriv(",
    "createDecipheriv(",
    "createSign(",
    "createVerify(",
    "createHmac(",
    "generateKeyPair(",
    "generateKeyPairSync(",
    "publicEncrypt(",
    "privateDecrypt(",
    "createPrivateKey(",
    "crypto.subtle",
    "pbkdf2(",
    "pbkdf2Sync(",
];
