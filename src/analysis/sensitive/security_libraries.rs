//! Libraries whose import is security-sensitive, per language: crypto and auth libraries (see
//! [`super::crypto`], [`super::auth`]).

use super::Concern;

pub(super) const PYTHON_SECURITY: &[(&str, Concern)] = &[
    ("cryptography", Concern::Crypto),
    ("Crypto", Concern::Crypto),
    ("Cryptodome", Concern::Crypto),
    ("nacl", Concern::Crypto),
    ("OpenSSL", Concern::Crypto),
    ("rsa", Concern::Crypto),
    ("ecdsa", Concern::Crypto),
    ("hmac", Concern::Crypto),
    ("gnupg", Concern::Crypto),
    ("jwt", Concern::Auth),
    ("jose", Concern::Auth),
    ("authlib", Concern::Auth),
    ("oauthlib", Concern::Auth),
    ("requests_oauthlib", Concern::Auth),
    ("google_auth_oauthlib", Concern::Auth),
    ("msal", Concern::Auth),
    ("itsdangerous", Concern::Auth),
    ("flask_login", Concern::Auth),
    ("bcrypt", Concern::Auth),
    ("passlib", Concern::Auth),
    ("argon2", Concern::Auth),
    ("pyotp", Concern::Auth),
    ("getpass", Concern::Auth),
    ("keyring", Concern::Credentials),
];

pub(super) const JS_SECURITY: &[(&str, Concern)] = &[
    ("node-forge", Concern::Crypto),
    ("crypto-js", Concern::Crypto),
    ("openpgp", Concern::Crypto),
    ("tweetnacl", Concern::Crypto),
    ("jsonwebtoken", Concern::Auth),
    ("jose", Concern::Auth),
    ("passport", Concern::Auth),
    ("express-session", Concern::Auth),
    ("cookie-session", Concern::Auth),
    ("next-auth", Concern::Auth),
    ("@auth/", Concern::Auth),
    ("simple-oauth2", Concern::Auth),
    ("openid-client", Concern::Auth),
    ("bcrypt", Concern::Auth),
    ("bcryptjs", Concern::Auth),
    ("argon2", Concern::Auth),
    ("otplib", Concern::Auth),
    ("keytar", Concern::Credentials),
];

pub(super) const GO_SECURITY: &[(&str, Concern)] = &[
    ("crypto/aes", Concern::Crypto),
    ("crypto/cipher", Concern::Crypto),
    ("crypto/des", Concern::Crypto),
    ("crypto/rsa", Concern::Crypto),
    ("crypto/ecdsa", Concern::Crypto),
    ("crypto/ecdh", Concern::Crypto),
    ("crypto/ed25519", Concern::Crypto),
    ("crypto/hmac", Concern::Crypto),
    ("crypto/tls", Concern::Crypto),
    ("crypto/x509", Concern::Crypto),
    ("golang.org/x/crypto/", Concern::Crypto),
    ("golang.org/x/oauth2", Concern::Auth),
    ("github.com/golang-jwt/jwt/", Concern::Auth),
];

pub(super) const RUBY_SECURITY: &[(&str, Concern)] = &[
    ("openssl", Concern::Crypto),
    ("rbnacl", Concern::Crypto),
    ("jwt", Concern::Auth),
    ("bcrypt", Concern::Auth),
    ("omniauth", Concern::Auth),
    ("devise", Concern::Auth),
];

pub(super) const RUST_SECURITY: &[(&str, Concern)] = &[
    ("ring", Concern::Crypto),
    ("rsa", Concern::Crypto),
    ("aes_gcm", Concern::Crypto),
    ("ed25519_dalek", Concern::Crypto),
    ("jsonwebtoken", Concern::Auth),
    ("argon2", Concern::Auth),
    ("bcrypt", Concern::Auth),
];
