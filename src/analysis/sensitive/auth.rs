//! Security-sensitive content: code that implements authentication.
//!
//! **auth**: implementing authentication: OAuth flows (`client_secret`, `refresh_token`,
//! `grant_type`, `id_token`, `code_verifier`, `/oauth/` and `/oauth2/` paths), JWT (`jwt`,
//! `jose`, `jsonwebtoken`), sessions (`Set-Cookie`, `express-session`, `passport`), password
//! hashing (`bcrypt`, `passlib`, `argon2`, `pbkdf2_hmac`, `hashlib.scrypt`), password prompts
//! (`getpass`, `read -s`), `htpasswd`, `kinit`, OTP libraries.

/// OAuth and session words (whole words, any case) that mean the code implements auth:
/// (lowercase, as shown).
pub(super) const AUTH_WORDS: &[(&str, &str)] = &[
    ("client_secret", "client_secret"),
    ("clientsecret", "clientSecret"),
    ("refresh_token", "refresh_token"),
    ("refreshtoken", "refreshToken"),
    ("grant_type", "grant_type"),
    ("id_token", "id_token"),
    ("code_verifier", "code_verifier"),
    ("code_challenge", "code_challenge"),
    ("set-cookie", "Set-Cookie"),
];
