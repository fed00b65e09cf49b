//! `karc keygen`, identity files as age writes them, passphrases from the
//! environment, and secrets never echoed.

use std::path::Path;

use crate::common::{fixture, karc, outcome};

const SECRET: &str = "AGE-SECRET-KEY-1";

fn pack_args<'a>(dir: &'a str, out: &'a str) -> Vec<&'a str> {
    let _ = dir;
    vec![
        "pack",
        "-c",
        "fixtures/arx-toy/test.toml",
        "fixtures/arx-toy/test.csv",
        "-o",
        out,
    ]
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

#[test]
fn keygen_writes_a_private_identity_that_opens_what_its_recipient_sealed() {
    let dir = tempfile::tempdir().unwrap();
    let identity = path(dir.path(), "id.txt");
    let (code, recipient, err) = outcome(&karc(&["keygen", "-o", &identity]));
    assert_eq!(code, 0, "{err}");
    let recipient = recipient.trim();
    assert!(recipient.starts_with("age1") && !recipient.contains(SECRET));
    assert!(!err.contains(SECRET), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&identity).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let text = std::fs::read_to_string(&identity).unwrap();
    assert!(
        text.contains(&format!("# public key: {recipient}\n")),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with(SECRET)).count(), 1);

    // -y prints the recipient back, as age-keygen -y does.
    let (code, out, _) = outcome(&karc(&["keygen", "-y", &identity]));
    assert_eq!((code, out.trim()), (0, recipient));

    // Never overwritten without --force.
    let (code, _, err) = outcome(&karc(&["keygen", "-o", &identity]));
    assert_eq!(code, 2);
    assert!(err.contains("the file exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&identity).unwrap(), text);

    // Sealed for the recipient, opened by the identity file, restored exactly.
    let archive = path(dir.path(), "a.karc");
    let mut args = pack_args("", &archive);
    args.extend(["-r", recipient]);
    let (code, _, err) = outcome(&karc(&args));
    assert_eq!(code, 0, "{err}");
    let restored = path(dir.path(), "r.csv");
    let (code, _, err) = outcome(&karc(&[
        "restore", &archive, "-i", &identity, "-o", &restored,
    ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&restored).unwrap(),
        std::fs::read(fixture("arx-toy/test.csv")).unwrap()
    );

    // A second key, with --force, cannot open it.
    let (code, _, _) = outcome(&karc(&["keygen", "-o", &identity, "--force"]));
    assert_eq!(code, 0);
    let (code, _, err) = outcome(&karc(&[
        "restore", &archive, "-i", &identity, "-o", &restored,
    ]));
    assert_ne!(code, 0);
    assert!(!err.contains(SECRET), "{err}");
}

#[test]
fn an_age_keygen_file_with_several_identities_is_read() {
    // age-keygen's layout: comments, then the key; two of them concatenated.
    let dir = tempfile::tempdir().unwrap();
    let one = path(dir.path(), "one.txt");
    let two = path(dir.path(), "two.txt");
    let r1 = outcome(&karc(&["keygen", "-o", &one])).1;
    let r2 = outcome(&karc(&["keygen", "-o", &two])).1;
    let both = path(dir.path(), "both.txt");
    let text =
        std::fs::read_to_string(&one).unwrap() + "\n" + &std::fs::read_to_string(&two).unwrap();
    std::fs::write(&both, text).unwrap();
    let (code, out, _) = outcome(&karc(&["keygen", "-y", &both]));
    assert_eq!(code, 0);
    assert_eq!(out, format!("{}{}", r1, r2));
    // Sealed for the second key; the file with both opens it.
    let archive = path(dir.path(), "a.karc");
    let mut args = pack_args("", &archive);
    args.extend(["-r", r2.trim()]);
    assert_eq!(outcome(&karc(&args)).0, 0);
    let restored = path(dir.path(), "r.csv");
    let (code, _, err) = outcome(&karc(&["restore", &archive, "-i", &both, "-o", &restored]));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn keygen_does_not_print_a_secret_to_a_pipe_without_saying_where_the_public_key_is() {
    // Standard output is a pipe here: the identity goes there (as
    // age-keygen > file), the public key to stderr.
    let (code, out, err) = outcome(&karc(&["keygen"]));
    assert_eq!(code, 0);
    assert!(out.contains(SECRET), "{out}");
    assert!(err.starts_with("Public key: age1"), "{err}");
    assert!(!err.contains(SECRET));
}

#[test]
fn a_secret_key_given_as_recipient_is_refused_without_echo() {
    let dir = tempfile::tempdir().unwrap();
    let identity = std::fs::read_to_string(fixture("archive/keys/identity.txt")).unwrap();
    let secret = identity
        .lines()
        .find(|l| l.starts_with(SECRET))
        .unwrap()
        .trim()
        .to_owned();
    let archive = path(dir.path(), "a.karc");
    let mut args = pack_args("", &archive);
    args.extend(["-r", &secret]);
    let (code, _, err) = outcome(&karc(&args));
    assert_eq!(code, 2);
    assert!(err.contains("this is a secret key"), "{err}");
    assert!(!err.contains(&secret[16..]), "{err}");
    // In a recipients file too.
    let file = path(dir.path(), "recipients.txt");
    std::fs::write(&file, format!("# mine\n{secret}\n")).unwrap();
    let mut args = pack_args("", &archive);
    args.extend(["-R", &file]);
    let (code, _, err) = outcome(&karc(&args));
    assert_eq!(code, 2);
    assert!(err.contains("line 2: this is a secret key"), "{err}");
    assert!(!err.contains(&secret[16..]), "{err}");
    assert!(!Path::new(&archive).exists());
}

#[test]
fn a_passphrase_from_the_environment_seals_and_opens() {
    let dir = tempfile::tempdir().unwrap();
    let archive = path(dir.path(), "a.karc");
    let restored = path(dir.path(), "r.csv");
    let mut args = pack_args("", &archive);
    args.extend(["--passphrase-env", "KARC_TEST_PASS", "--work-factor", "4"]);
    let run = |args: &[&str], pass: Option<&str>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_karc"));
        c.args(args).env_remove("KARC_TEST_PASS");
        if let Some(p) = pass {
            c.env("KARC_TEST_PASS", p);
        }
        outcome(&c.output().unwrap())
    };
    let (code, _, err) = run(&args, None);
    assert_eq!(code, 2);
    assert!(
        err.contains("--passphrase-env KARC_TEST_PASS: no such environment variable"),
        "{err}"
    );
    let (code, _, err) = run(&args, Some("correct horse"));
    assert_eq!(code, 0, "{err}");
    let restore = [
        "restore",
        &archive,
        "--passphrase-env",
        "KARC_TEST_PASS",
        "-o",
        &restored,
    ];
    let (code, _, err) = run(&restore, Some("wrong horse"));
    assert_ne!(code, 0);
    assert!(
        !err.contains("wrong horse") && !err.contains("correct horse"),
        "{err}"
    );
    let (code, _, err) = run(&restore, Some("correct horse"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&restored).unwrap(),
        std::fs::read(fixture("arx-toy/test.csv")).unwrap()
    );
    // The same passphrase in a file opens it too (one scrypt recipient).
    let file = path(dir.path(), "pass.txt");
    std::fs::write(&file, "correct horse\n").unwrap();
    let (code, _, err) = run(
        &[
            "restore",
            &archive,
            "--passphrase-file",
            &file,
            "-o",
            &restored,
            "--force",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_passphrase_prompt_without_a_terminal_says_what_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let archive = path(dir.path(), "a.karc");
    let mut args = pack_args("", &archive);
    args.push("--passphrase");
    let mut c = std::process::Command::new("setsid");
    c.arg(env!("CARGO_BIN_EXE_karc"))
        .args(&args)
        .stdin(std::process::Stdio::null());
    // setsid (util-linux) runs karc without a controlling terminal.
    let o = c.output().expect("setsid");
    let (code, _, err) = outcome(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--passphrase: no terminal to ask on"), "{err}");
    assert!(err.contains("--passphrase-env"), "{err}");
}

#[test]
fn an_empty_passphrase_is_refused_by_the_facade_as_by_the_cli() {
    // Issue 32: the Python API sealed with "" an archive the CLI cannot open.
    let seal = karc::api::SealOptions {
        passphrase: Some(String::new()),
        ..Default::default()
    };
    let err = seal
        .seal()
        .err()
        .expect("an empty passphrase must be refused");
    assert!(err.to_string().contains("empty passphrase"), "{err}");
    let open = karc::api::KeyOptions {
        passphrase: Some(String::new()),
        ..Default::default()
    };
    let err = open
        .key()
        .err()
        .expect("an empty passphrase must be refused");
    assert!(err.to_string().contains("empty passphrase"), "{err}");
}

/// A key typed where its file goes is named as such, never as "No such file
/// or directory", and a secret key given so is never echoed; a secret key
/// given as a recipient points to `karc keygen -y`.
#[test]
fn a_key_given_where_its_file_goes_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let identity = path(dir.path(), "id.txt");
    let (code, recipient, _) = outcome(&karc(&["keygen", "-o", &identity]));
    assert_eq!(code, 0);
    let recipient = recipient.trim().to_owned();
    let secret = std::fs::read_to_string(&identity)
        .unwrap()
        .lines()
        .find(|l| l.starts_with(SECRET))
        .unwrap()
        .to_owned();
    let archive = path(dir.path(), "a.karc");
    let mut pack = pack_args("", &archive);
    pack.extend(["-r", &recipient]);
    assert_eq!(outcome(&karc(&pack)).0, 0);
    let out = path(dir.path(), "o.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["restore", &archive, "-o", &out, "-i", &recipient],
            "this is a public key (age1...), not an identity file",
        ),
        (
            vec!["keygen", "-y", &recipient],
            "this is a public key (age1...), not an identity file",
        ),
        (
            vec!["inspect", &archive, "-i", &recipient],
            "this is a public key (age1...), not an identity file",
        ),
        (
            vec!["restore", &archive, "-o", &out, "-i", &secret],
            "AGE-SECRET-KEY-(not shown): this is a secret key itself, not its file",
        ),
        (
            vec![
                "restore",
                &archive,
                "-o",
                &out,
                "--passphrase-file",
                &recipient,
            ],
            "this is a public key (age1...), not a passphrase file",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, err) = outcome(&karc(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("No such file"), "{args:?}: {err}");
        assert!(!err.contains(&secret[SECRET.len()..]), "{args:?}: {err}");
    }
    let mut sealed = pack_args("", &out);
    sealed.extend(["-R", &recipient]);
    let (code, _, err) = outcome(&karc(&sealed));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give it with `-r age1...`"), "{err}");
    let mut sealed = pack_args("", &out);
    sealed.extend(["-r", &secret]);
    let (code, _, err) = outcome(&karc(&sealed));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("as `karc keygen -y FILE` prints it"), "{err}");
    assert!(!err.contains("age-keygen"), "{err}");
}

/// `keygen -y FILE --json`: the public keys are the result, so the document
/// goes to standard output, and standard error stays empty.
#[test]
fn keygen_y_json_goes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let identity = path(dir.path(), "id.txt");
    let (_, recipient, _) = outcome(&karc(&["keygen", "-o", &identity]));
    let (code, out, err) = outcome(&karc(&["keygen", "-y", &identity, "--json"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["schema"], "karc.keygen/1");
    assert_eq!(doc["recipients"][0], recipient.trim());
}
