//! End-to-end tests of the `shapescript` binary: exit codes, the JSON format,
//! the error limit, folder walking, `-I`, `--deny-hints` and `explain`. Each test writes its
//! own files into a fresh temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("shapescript-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, path: &str, text: &str) -> &Self {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shapescript"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn clean_files_exit_0_with_no_output() {
    let dir = TempDir::new("clean");
    dir.write(
        "a.ss",
        "dim D = 768\nextern fn f(x: [b D]) -> [b] = \"m.f\"\n",
    );
    let out = run(&dir.0, &["check", "a.ss"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn errors_exit_1_and_render_like_rustc() {
    let dir = TempDir::new("errors");
    dir.write("a.ss", "dim D = 768 / 5\n");
    let out = run(&dir.0, &["check", "a.ss"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.starts_with("error[E0305]: division in a dim is not exact\n  --> a.ss:1:9\n"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "no colour with NO_COLOR: {text}");
    assert!(
        text.ends_with("error: aborting due to 1 previous error\n"),
        "{text}"
    );
}

#[test]
fn json_is_one_object_per_line_on_stderr() {
    let dir = TempDir::new("json");
    dir.write("a.ss", "dim A = B\ndim B = A\ndim C = 0\n");
    let out = run(&dir.0, &["check", "--format", "json", "a.ss"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let lines: Vec<serde_json::Value> = stderr(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let codes: Vec<&str> = lines.iter().map(|v| v["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["E0304", "E0305"]);
    assert_eq!(lines[0]["severity"], "error");
    assert_eq!(lines[0]["primary"]["file"], "a.ss");
    assert_eq!(lines[0]["primary"]["line_start"], 1);
    assert_eq!(lines[0]["notes"].as_array().unwrap().len(), 2);
}

#[test]
fn errors_past_the_limit_are_counted_not_printed() {
    let dir = TempDir::new("limit");
    let many: String = (0..250)
        .map(|i| format!("fn f{i}(x: [n]) -> [m] = x\n"))
        .collect();
    dir.write("many.ss", &many);
    let out = run(&dir.0, &["check", "many.ss"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert_eq!(
        text.matches("error[E0301]").count(),
        100,
        "the default limit"
    );
    assert!(
        text.ends_with(
            "note: 150 more errors not shown, past the limit of 100 errors: \
             `--error-limit N` raises it, `--error-limit 0` shows them all\n\n\
             error: aborting due to 250 previous errors\n"
        ),
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
    let out = run(&dir.0, &["check", "--error-limit", "3", "many.ss"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).matches("error[E0301]").count(), 3);
    assert!(stderr(&out).contains("note: 247 more errors not shown"));
    let out = run(&dir.0, &["check", "--error-limit", "0", "many.ss"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).matches("error[E0301]").count(), 250);
    assert!(!stderr(&out).contains("not shown"));
    // JSON: the same limit, then one object of the same fields saying so.
    let out = run(
        &dir.0,
        &["check", "--format", "json", "--error-limit", "2", "many.ss"],
    );
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stderr(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let severities: Vec<&str> = lines
        .iter()
        .map(|v| v["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["error", "error", "note"]);
    assert_eq!(lines[2]["code"], "");
    assert!(lines[2]["primary"].is_null());
    assert!(lines[2]["message"]
        .as_str()
        .unwrap()
        .starts_with("248 more errors not shown"));
    // `build` takes the same flag.
    let out = run(
        &dir.0,
        &["build", "--error-limit", "1", "many.ss", "-o", "pkg"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).matches("error[E0301]").count(), 1);
    let out = run(&dir.0, &["check", "--error-limit", "many", "many.ss"]);
    assert_eq!(out.status.code(), Some(2), "not a number: a usage error");
}

#[test]
fn hints_pass_unless_denied() {
    let dir = TempDir::new("hints");
    dir.write(
        "h.ss",
        "dim D = 8\nextern fn f(img: [b 3 16 gh 16gw]) -> [b (gh gw) D] = \"m.f\"\n",
    );
    let out = run(&dir.0, &["check", "h.ss"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("hint[H2201]"));
    let out = run(&dir.0, &["check", "--deny-hints", "h.ss"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn folders_are_walked_for_ss_files_in_order() {
    let dir = TempDir::new("walk");
    dir.write("src/b.ss", "dim B = 0\n")
        .write("src/a.ss", "dim A = 0\n")
        .write("src/notes.txt", "dim X = 0\n");
    dir.write("src/deep/c.ss", "dim C = 0\n");
    let out = run(&dir.0, &["check", "--format", "json", "src"]);
    assert_eq!(out.status.code(), Some(1));
    let files: Vec<String> = stderr(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["primary"]["file"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(files, ["src/a.ss", "src/b.ss", "src/deep/c.ss"]);
}

#[test]
fn imports_use_the_search_path() {
    let dir = TempDir::new("include");
    dir.write(
        "lib/vision.ss",
        "dim D = 768\ndim Images = [b 3 16gh 16gw]\n",
    );
    dir.write(
        "app/main.ss",
        "import vision\nextern fn f(x: [vision.Images vision.D]) -> [b vision.D] = \"m.f\"\n",
    );
    let out = run(&dir.0, &["check", "app/main.ss"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[E0201]"), "{}", stderr(&out));
    let out = run(&dir.0, &["check", "-I", "lib", "app/main.ss"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = TempDir::new("usage");
    let out = run(&dir.0, &["check", "missing.ss"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read `missing.ss`"),
        "{}",
        stderr(&out)
    );
    let out = run(&dir.0, &["check", "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&dir.0, &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    dir.write("a.ss", "dim D = 1\n");
    let out = run(&dir.0, &["check", "-I", "nowhere", "a.ss"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(dir.0.join("bad.ss"), [0xff, 0xfe, 0x00]).unwrap();
    let out = run(&dir.0, &["check", "bad.ss"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
}

#[test]
fn explain_prints_the_text_or_exits_2() {
    let dir = TempDir::new("explain");
    let out = run(&dir.0, &["explain", "E0402"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("E0402: size division is not exact\n"),
        "{text}"
    );
    assert!(text.contains("Wrong") && text.contains("Fixed"));
    let out = run(&dir.0, &["explain", "e0101"]);
    assert_eq!(out.status.code(), Some(0), "parser codes are explained too");
    let out = run(&dir.0, &["explain", "E9999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("E9999"));
}

#[test]
fn explain_into_a_closed_pipe_exits_quietly() {
    // `shapescript explain E0306 | head -1` once panicked on the broken pipe.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_shapescript"))
        .args(["explain", "E0306"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn fmt_check_prints_a_diff_and_fmt_rewrites_the_file() {
    let dir = TempDir::new("fmt");
    dir.write("a.ss", "dim   D=4\n");
    let check = run(&dir.0, &["fmt", "--check", "a.ss"]);
    assert_eq!(check.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(diff.contains("-dim   D=4\n+dim D = 4\n"), "{diff}");
    assert_eq!(run(&dir.0, &["fmt"]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.0.join("a.ss")).unwrap(),
        "dim D = 4\n"
    );
    assert_eq!(run(&dir.0, &["fmt", "--check", "."]).status.code(), Some(0));
}
