//! The library's messages in Python's terms. The facade words its errors
//! for the command line (`--recipient 2: ...`, `give --passphrase ...`);
//! a Python caller passed arguments, not flags, so each flag is named as
//! the argument that carries it (`recipients[1]`, `passphrase=`). Text in
//! backticks is advice to run the CLI (`karc init --hierarchies-dir DIR`)
//! and is kept as it is.

/// Whole phrases first: their flags have no one-to-one argument.
const PHRASES: &[(&str, &str)] = &[
    (
        "give --identity, --passphrase (asked on the terminal), --passphrase-file or --passphrase-env",
        "give identity= (an age identity file) or passphrase=",
    ),
    (
        "give --passphrase (asked on the terminal), --passphrase-file or --passphrase-env",
        "give passphrase=",
    ),
    (
        "give --passphrase-file (or type it when asked)",
        "give its passphrase=",
    ),
    (
        "say how to seal the private part: --recipient / --recipients-file, a passphrase",
        "say how to seal the private part: recipients= / recipients_files=, passphrase=",
    ),
    (
        "use --passphrase-file or --passphrase-env",
        "give passphrase=",
    ),
];

/// Flags whose argument has another name.
const RENAMED: &[(&str, &str)] = &[
    ("recipients-file", "recipients_files"),
    ("constraint", "constraints"),
    ("passphrase-file", "passphrase"),
    ("passphrase-env", "passphrase"),
    ("signer", "signer"),
];

/// `message` with each CLI flag named as the Python argument that carries it.
pub fn python_terms(message: &str) -> String {
    let mut text = message.to_owned();
    for (cli, python) in PHRASES {
        text = text.replace(cli, python);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let mut rest = text.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            in_code = !in_code;
        }
        if !in_code && rest.starts_with("--") && !out.ends_with(|p: char| p.is_alphanumeric()) {
            let name_len = rest[2..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len() - 2);
            let name = &rest[2..2 + name_len];
            if !name.is_empty() && name.starts_with(|c: char| c.is_ascii_lowercase()) {
                rest = &rest[2 + name_len..];
                out.push_str(&argument(name, &mut rest));
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The Python argument of flag `name`; `--recipient N` (1-based, `rest`
/// after the flag) becomes `recipients[N-1]`.
fn argument(name: &str, rest: &mut &str) -> String {
    if name == "recipient" {
        let digits = rest.trim_start_matches(' ');
        let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = n.parse::<usize>()
            && n >= 1
        {
            *rest = &digits[n.to_string().len()..];
            return format!("recipients[{}]", n - 1);
        }
        return "recipients".to_owned();
    }
    let python = RENAMED
        .iter()
        .find(|(cli, _)| *cli == name)
        .map_or_else(|| name.replace('-', "_"), |(_, p)| (*p).to_owned());
    // `--k needs --qi` reads `k= needs qi=`; `--mode: ...` reads `mode: ...`.
    if rest.starts_with(':') {
        python
    } else {
        format!("{python}=")
    }
}
