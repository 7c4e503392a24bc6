//! Security-sensitive content: code that gains privilege.
//!
//! **privilege**: `sudo`, `doas`, `su`, `pkexec`; `chmod` with setuid/setgid bits (`u+s`,
//! `+s`, `4755`, `os.chmod(p, 0o4755)`, `S_ISUID`) or world-writable modes (`777`, `o+w`,
//! `a+rwx`); `chown root`; `setcap`, `visudo`, `useradd`, `usermod`, `passwd`, `chpasswd`,
//! `iptables`, `nft`, `ufw`, `sysctl -w`; `docker run --privileged`, `--cap-add`, a mounted
//! `docker.sock`; `os.setuid(`, `os.setgid(`.

/// Why a `chmod` mode is risky: setuid/setgid, or writable by everyone.
pub(super) fn risky_mode(mode: &str) -> Option<&'static str> {
    // `04755` is `4755`: leading zeros say octal.
    let octal = mode.trim_start_matches('0');
    if mode.bytes().all(|b| b.is_ascii_digit()) && mode.len() >= 3 && octal.len() <= 4 {
        let octal = format!("{octal:0>3}");
        let digits: Vec<u8> = octal.bytes().map(|b| b - b'0').collect();
        if digits.iter().any(|d| *d > 7) {
            return None;
        }
        if digits.len() == 4 && digits[0] & 0b110 != 0 {
            return Some("setuid/setgid");
        }
        if digits[digits.len() - 1] & 0b010 != 0 {
            return Some("world-writable");
        }
        return None;
    }
    for clause in mode.split(',') {
        let Some(op) = clause.find(['+', '=']) else {
            continue;
        };
        let (who, perms) = (&clause[..op], &clause[op + 1..]);
        if perms.contains('s') {
            return Some("setuid/setgid");
        }
        if perms.contains('w') && (who.contains('o') || who.contains('a')) {
            return Some("world-writable");
        }
    }
    None
}

/// A `chmod` call in code that sets the setuid/setgid bits or makes a file world-writable:
/// `os.chmod(p, 0o4755)`, `fs.chmodSync(p, 0o777)`, `os.chmod(p, m | stat.S_ISUID)` (on the
/// compact line).
pub(super) fn chmod_call(compact: &str) -> Option<String> {
    let at = ["chmod(", "chmodsync("]
        .iter()
        .filter_map(|call| compact.find(call).map(|at| at + call.len()))
        .min()?;
    let rest = &compact[at..];
    if rest.contains("s_isuid") || rest.contains("s_isgid") {
        return Some("setuid/setgid chmod S_ISUID".to_owned());
    }
    let (digits, written) = rest
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|word| {
            let digits = word.strip_prefix("0o").or_else(|| {
                word.strip_prefix('0')
                    .filter(|d| d.len() == 4 && d.bytes().all(|b| b.is_ascii_digit()))
            })?;
            Some((digits, word))
        })?;
    let why = risky_mode(digits)?;
    Some(format!("{why} chmod {written}"))
}
