//! The gateway's rooms and who may use whom, checked from the source: every `use` and every
//! path through `crate::`, `super::` or a child module in `gateway/src` is an edge from one file
//! to another. The test fails when an area imports a sibling, a module imports one of a higher
//! layer, or files import each other in a circle; the rooms are the table [`LAYERS`], drawn in
//! `gateway/README.md` (Architecture).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::Path;

/// The top-level modules by layer, highest first. A module may use its own layer's modules
/// only where [`SIBLINGS_MAY_USE`] says so, and any module of a lower layer.
pub const LAYERS: &[(&str, &[&str])] = &[
    (
        "entry: the process and its background tasks, transport, dispatch, the process's state, the content snapshot, the import command",
        &["server", "http", "operation", "state", "content", "import", "console"],
    ),
    ("bookings of either kind: the read and the cancel, finding any booking; the outbox", &["bookings", "outbox"]),
    ("the areas: slices of one shape", &["hotels", "activities"]),
    (
        "who calls: requestors, their authentication, their limits and their traffic; the console's operators",
        &["requestors", "auth", "limits", "operators", "traffic"],
    ),
    (
        "below every area",
        &["shared", "store", "errors", "metrics", "config", "args", "client", "txlog", "telemetry", "audit"],
    ),
];

/// Uses within one layer that are allowed (user, used).
pub const SIBLINGS_MAY_USE: &[(&str, &str)] = &[
    ("server", "http"),
    ("server", "state"),
    ("server", "console"),
    ("console", "state"),
    ("http", "operation"),
    ("http", "state"),
    ("operation", "state"),
    ("operation", "content"),
    ("state", "content"),
    ("auth", "requestors"),
    ("limits", "requestors"),
    ("operators", "requestors"),
    ("operators", "auth"),
    ("traffic", "requestors"),
    ("shared", "store"),
    ("shared", "errors"),
    ("store", "metrics"),
    ("config", "store"),
    ("config", "txlog"),
    ("config", "args"),
    ("txlog", "args"),
    ("txlog", "store"),
    ("txlog", "metrics"),
    ("txlog", "client"),
    ("txlog", "shared"),
    ("audit", "store"),
];

/// What the files of an area's layers may not use: (the layer, what it may not use, why). A
/// file is of a layer when the second part of its module path is the layer's name
/// (`hotels::repo::catalogue` is of `repo`). What it may not use is the message crate
/// (`ota_messages`), a top-level module (`store`), or another layer of its own area (`mapping`).
pub const CONTRACTS: &[(&str, &str, &str)] = &[
    (
        "rules",
        "ota_messages",
        "rules work on domain values (reading messages is the reader's, writing them the mapping's)",
    ),
    ("rules", "store", "rules are pure: no database"),
    ("rules", "mapping", "rules do not write messages"),
    ("rules", "repo", "rules are pure: no database"),
    ("repo", "ota_messages", "a repo has SQL only: no messages"),
    ("repo", "rules", "a repo has SQL only: decisions are the rules'"),
    ("repo", "mapping", "a repo has SQL only: no messages"),
    ("catalogue", "ota_messages", "the catalogue is domain content: no messages"),
];

/// What of `ota_messages` every layer may name: the code lists of a refusal ([`crate`'s
/// `errors::Problem` carries them), which are the service's vocabulary, not a message.
pub const CODE_LISTS: &[&str] = &["ota_messages::common::ErrorCode", "ota_messages::common::ErrorWarningType"];

/// Contracts not kept yet, each by a file that predates them: (module, what it uses). The test
/// fails on any other break of a contract, and on an entry here that is kept now (so the list
/// only shrinks). `gateway/README.md` (Architecture) says what each one waits for.
pub const NOT_YET: &[(&str, &str)] = &[];

/// The areas whose files [`CONTRACTS`] binds.
pub const AREAS: &[&str] = &["hotels", "activities", "bookings", "outbox"];

/// The files that break a contract of [`CONTRACTS`], and every file outside `store` that names
/// the database `SqlDialect` (only the store may know it).
pub fn contracts(files: &[SourceFile], edges: &BTreeSet<Edge>) -> Vec<Violation> {
    let mut out = Vec::new();
    for f in files {
        let module = f.module.join("::");
        let t = tokens(&strip(&f.text));
        let names = |name: &str| t.iter().any(|w| w == name);
        let uses = |target: &[&str]| {
            edges.iter().filter(|e| e.from == module).any(|e| {
                let to: Vec<&str> = e.to.split("::").collect();
                to.len() >= target.len() && to[..target.len()] == *target
            })
        };
        if f.module.first().is_some_and(|m| m != "store") && names("SqlDialect") {
            out.push(Violation::Contract {
                module: module.clone(),
                uses: "SqlDialect",
                rule: "names the database SqlDialect: only the store may know it",
            });
        }
        let (Some(area), Some(layer)) = (f.module.first(), f.module.get(1)) else { continue };
        if !AREAS.contains(&area.as_str()) {
            continue;
        }
        for &(of, what, why) in CONTRACTS {
            let broken = match what {
                "ota_messages" => crate_paths(&t, what).iter().any(|p| !CODE_LISTS.contains(&p.as_str())),
                "store" => uses(&[what]),
                own_layer => uses(&[area.as_str(), own_layer]),
            };
            if layer == of && broken {
                out.push(Violation::Contract { module: module.clone(), uses: what, rule: why });
            }
        }
    }
    out
}

/// A Rust source file of the crate and its module path (`hotels::repo`).
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The module path, without `crate`.
    pub module: Vec<String>,
    /// Its text.
    pub text: String,
}

/// One use of a file by another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// The user's module path.
    pub from: String,
    /// The used module path.
    pub to: String,
}

/// What is wrong with the house.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// An area (or any module) uses a module of its own layer that it may not use.
    Sibling(Edge),
    /// A module uses a module of a higher layer.
    Upward(Edge),
    /// A module names an item of the crate root (`crate::row`, `crate::AppState`), which hides
    /// the file it comes from and its floor: every module names things by their own module's path.
    Root(Edge),
    /// A top-level module the layers do not place.
    Unplaced(String),
    /// Files that import each other in a circle.
    Circle(Vec<String>),
    /// A file breaks the contract of its layer within an area (see [`CONTRACTS`]).
    Contract {
        /// The file's module path.
        module: String,
        /// What it uses and may not (`ota_messages`, `store`, `rules`, …; `SqlDialect`).
        uses: &'static str,
        /// The contract.
        rule: &'static str,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Sibling(e) => write!(f, "{} uses its sibling {}", e.from, e.to),
            Violation::Upward(e) => write!(f, "{} uses {}, of a higher layer", e.from, e.to),
            Violation::Root(e) => write!(f, "{} uses an item of the crate root: name it by its module's path", e.from),
            Violation::Unplaced(m) => write!(f, "the module {m} is in no layer of LAYERS"),
            Violation::Circle(c) => write!(f, "files import each other in a circle: {}", c.join(" → ")),
            Violation::Contract { module, rule, .. } => write!(f, "{module}: {rule}"),
        }
    }
}

/// Reads every `.rs` file under `src` (without `main.rs` and `bin/`, the binary, a crate of its
/// own).
pub fn read_crate(src: &Path) -> std::io::Result<Vec<SourceFile>> {
    let mut files = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                if dir == src && path.file_name().is_some_and(|n| n == "bin") {
                    continue;
                }
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap_or(&path);
                let mut module: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
                let last = module.pop().unwrap_or_default();
                match last.as_str() {
                    "main.rs" if module.is_empty() => continue,
                    "lib.rs" if module.is_empty() => {}
                    "mod.rs" => {}
                    other => module.push(other.trim_end_matches(".rs").to_string()),
                }
                let text = fs::read_to_string(&path)?;
                files.push(SourceFile { module, text });
            }
        }
    }
    files.sort_by(|a, b| a.module.cmp(&b.module));
    Ok(files)
}

/// The edges between files: who uses whom (a file's own items, the crate root and a module's
/// own parent or descendants are not edges).
pub fn edges(files: &[SourceFile]) -> BTreeSet<Edge> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let mut out = BTreeSet::new();
    for file in files {
        for path in paths(&strip(&file.text), &file.module, &modules) {
            // The longest prefix that is a file of the crate.
            let target = (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p));
            // A path that names no file of the crate names an item of the crate root (lib.rs):
            // its re-exports or a `#[macro_export]`ed macro. Reaching a module through the root
            // hides which floor it is on, so it is an edge of its own.
            if target.is_none() && !path.is_empty() && !file.module.is_empty() {
                out.insert(Edge { from: file.module.join("::"), to: String::new() });
            }
            if let Some(target) = target {
                // A module and the files inside it are one room: a parent's re-exports and a
                // child's use of its parent's items are not edges.
                let family = target.starts_with(&file.module) || file.module.starts_with(&target);
                if !family {
                    out.insert(Edge { from: file.module.join("::"), to: target.join("::") });
                }
            }
        }
    }
    out
}

/// Every violation of [`LAYERS`] and every circle among `edges`.
pub fn check(edges: &BTreeSet<Edge>) -> Vec<Violation> {
    let layer_of = |module: &str| {
        let top = module.split("::").next().unwrap_or_default();
        LAYERS.iter().position(|(_, ms)| ms.contains(&top)).map(|l| (l, top.to_string()))
    };
    let mut out = Vec::new();
    let mut unplaced = BTreeSet::new();
    for e in edges {
        if e.to.is_empty() {
            out.push(Violation::Root(e.clone()));
            continue;
        }
        match (layer_of(&e.from), layer_of(&e.to)) {
            (Some((lf, tf)), Some((lt, tt))) => {
                if tf == tt {
                    continue;
                }
                if lt < lf {
                    out.push(Violation::Upward(e.clone()));
                } else if lt == lf && !SIBLINGS_MAY_USE.contains(&(tf.as_str(), tt.as_str())) {
                    out.push(Violation::Sibling(e.clone()));
                }
            }
            (from, to) => {
                for (m, l) in [(&e.from, from), (&e.to, to)] {
                    if l.is_none() {
                        unplaced.insert(m.split("::").next().unwrap_or_default().to_string());
                    }
                }
            }
        }
    }
    out.extend(unplaced.into_iter().filter(|m| !m.is_empty()).map(Violation::Unplaced));
    out.extend(circles(edges).into_iter().map(Violation::Circle));
    out
}

/// The strongly connected groups of more than one file (Tarjan), each as a circle of its files.
fn circles(edges: &BTreeSet<Edge>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().push(&e.to);
        next.entry(&e.to).or_default();
    }
    struct Walk<'a> {
        next: &'a BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for &w in &self.next[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(lw));
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        next: &next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for &v in next.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.groups
}

/// The text without comments, string and character literals (each replaced by a space).
fn strip(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let at = |k: usize| b.get(i + k).copied().unwrap_or('\0');
        if c == '/' && at(1) == '/' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(1) == '*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c == 'r' || (c == 'b' && at(1) == 'r')) && !prev_is_ident(&b, i) && {
            let s = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = b[s..].iter().take_while(|&&h| h == '#').count();
            b.get(s + hashes) == Some(&'"')
        } {
            let s = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = b[s..].iter().take_while(|&&h| h == '#').count();
            i = s + hashes + 1;
            let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < b.len() && b[i..].iter().take(close.len()).ne(close.iter()) {
                i += 1;
            }
            i += close.len();
            out.push(' ');
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c == '\'' && (at(1) == '\\' || at(2) == '\'') {
            i += 1;
            while i < b.len() && b[i] != '\'' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// A token of the stripped text: an identifier or keyword, `::`, or one other character.
fn tokens(text: &str) -> Vec<String> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[s..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The absolute module paths a file names: `use` trees (with groups) and paths in code that
/// start at `crate`, `super`, `self` or a child module of the file, resolved from the (inline)
/// module they are written in.
fn paths(text: &str, file_module: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    let t = tokens(text);
    let mut out = Vec::new();
    // The inline modules open at each brace depth.
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < t.len() {
        let here: Vec<String> = file_module.iter().cloned().chain(inline.iter().map(|(_, m)| m.clone())).collect();
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(d, _)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if t.get(i + 2).is_some_and(|s| s == "{") => {
                inline.push((depth, t[i + 1].clone()));
                depth += 1;
                i += 3;
                continue;
            }
            "use" => {
                let mut trees = Vec::new();
                let end = use_tree(&t, i + 1, Vec::new(), &mut trees);
                for p in trees {
                    if let Some(abs) = resolve(&p, &here, modules) {
                        out.push(abs);
                    }
                }
                i = end;
                continue;
            }
            _ => {
                let starts_path = t.get(i + 1).is_some_and(|s| s == "::") && (i == 0 || t[i - 1] != "::");
                if starts_path {
                    let mut p = vec![t[i].clone()];
                    let mut j = i + 1;
                    while t.get(j).is_some_and(|s| s == "::") && t.get(j + 1).is_some_and(|s| is_ident(s)) {
                        p.push(t[j + 1].clone());
                        j += 2;
                    }
                    if let Some(abs) = resolve(&p, &here, modules) {
                        out.push(abs);
                    }
                    i = j;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// The paths into the crate `krate` that a file names (`ota_messages::common::ErrorCode`), in
/// `use` trees and in code.
fn crate_paths(t: &[String], krate: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, w) in t.iter().enumerate() {
        if w != krate || (i > 0 && t[i - 1] == "::") {
            continue;
        }
        let mut leaves = Vec::new();
        if i > 0 && t[i - 1] == "use" {
            use_tree(t, i, Vec::new(), &mut leaves);
        } else {
            let mut p = vec![w.clone()];
            let mut j = i + 1;
            while t.get(j).is_some_and(|s| s == "::") && t.get(j + 1).is_some_and(|s| is_ident(s)) {
                p.push(t[j + 1].clone());
                j += 2;
            }
            leaves.push(p);
        }
        out.extend(leaves.into_iter().map(|p| p.join("::")));
    }
    out
}

fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Reads one use tree from `t[i]`, pushing each leaf path; returns the index after it.
fn use_tree(t: &[String], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut p = prefix;
    loop {
        match t.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match t.get(i).map(String::as_str) {
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        None => return i,
                        _ => i = use_tree(t, i, p.clone(), out),
                    }
                }
            }
            Some("*") => {
                out.push(p);
                return i + 1;
            }
            Some(s) if is_ident(s) => {
                p.push(s.to_string());
                i += 1;
                if t.get(i).is_some_and(|s| s == "::") {
                    i += 1;
                    continue;
                }
                if t.get(i).is_some_and(|s| s == "as") {
                    i += 2;
                }
                out.push(p);
                // The end of this leaf: `;` ends the statement, `,` or `}` a group member.
                return if t.get(i).is_some_and(|s| s == ";") { i + 1 } else { i };
            }
            _ => return i + 1,
        }
    }
}

/// `p` as a path from the crate root, when it names something of this crate.
fn resolve(p: &[String], here: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let (first, rest) = p.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => {
            let mut b = here.to_vec();
            b.pop();
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                b.pop();
                rest = &rest[1..];
            }
            return Some(b.into_iter().chain(rest.iter().cloned()).collect());
        }
        _ => {
            // A child module of the module the path is written in.
            let child: Vec<String> = here.iter().cloned().chain(std::iter::once(first.clone())).collect();
            if modules.contains(&child) {
                return Some(child.into_iter().chain(rest.iter().cloned()).collect());
            }
            return None;
        }
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Reads the gateway's source.
fn gateway() -> Vec<SourceFile> {
    read_crate(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).expect("read gateway/src")
}

#[test]
fn the_gateway_keeps_its_rooms() {
    let files = gateway();
    assert!(files.len() > 40, "the gateway's files were not found ({})", files.len());
    let edges = edges(&files);
    let mut found = check(&edges);
    let broken = contracts(&files, &edges);
    let not_yet = |v: &Violation| matches!(v, Violation::Contract { module, uses, .. } if NOT_YET.contains(&(module.as_str(), *uses)));
    found.extend(broken.iter().filter(|v| !not_yet(v)).cloned());
    let list: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert!(
        list.is_empty(),
        "the gateway's rooms (gateway/README.md, Architecture) are not kept:\n{}",
        list.join("\n")
    );
    let kept_now: Vec<_> = NOT_YET
        .iter()
        .filter(|(m, u)| {
            !broken.iter().any(|v| matches!(v, Violation::Contract { module, uses, .. } if module == m && uses == u))
        })
        .collect();
    assert!(kept_now.is_empty(), "these keep their contracts now; remove them from NOT_YET: {kept_now:?}");
}

/// A crate of a few files, for showing what the test finds.
fn fake(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(module, text)| SourceFile {
            module: module.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect(),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn an_item_of_the_crate_root_is_found() {
    let files = fake(&[
        ("", "pub mod store;\npub mod shared;\npub use store::Store;"),
        ("store", "pub struct Store;"),
        ("shared", "use crate::Store;\nfn f() { crate::row!(); crate::store::g(); }"),
    ]);
    let found = check(&edges(&files));
    assert_eq!(found, vec![Violation::Root(Edge { from: "shared".into(), to: String::new() })]);
    assert_eq!(found[0].to_string(), "shared uses an item of the crate root: name it by its module's path");
}

#[test]
fn a_sibling_import_is_found() {
    let files = fake(&[
        ("hotels", "pub mod handlers;"),
        ("hotels::handlers", "use crate::activities::repo as activity_repo;\nfn f() { activity_repo::x(); }"),
        ("activities", "pub mod repo;"),
        ("activities::repo", "pub fn x() {}"),
    ]);
    let found = check(&edges(&files));
    assert_eq!(
        found,
        vec![Violation::Sibling(Edge { from: "hotels::handlers".into(), to: "activities::repo".into() })]
    );
    assert_eq!(found[0].to_string(), "hotels::handlers uses its sibling activities::repo");
}

#[test]
fn an_upward_import_a_circle_and_a_broken_contract_are_found() {
    let files = fake(&[
        ("shared", "pub mod x;"),
        // A grouped use, a path in code and a `super` path: all of them are edges.
        ("shared::x", "use crate::{errors, hotels::{self, repo}};\nfn f() { crate::http::g(); }"),
        ("hotels", "mod repo; mod rules;"),
        ("hotels::repo", "use ota_messages::x;\nuse super::super::operation::h;"),
        ("hotels::rules", "use ota_messages::common::{ErrorCode, ErrorWarningType};"),
        (
            "http",
            "use crate::operation::a; // crate::hotels in a comment is no edge\nconst S: &str = \"crate::bookings\";",
        ),
        ("operation", "use crate::http::b;"),
        ("store", "pub enum SqlDialect {}"),
        ("errors", "fn e(d: crate::store::SqlDialect) {}"),
    ]);
    let edges = edges(&files);
    let mut found: Vec<String> = check(&edges).iter().map(ToString::to_string).collect();
    found.extend(contracts(&files, &edges).iter().map(ToString::to_string));
    found.sort();
    assert_eq!(
        found,
        [
            "errors uses its sibling store",
            "errors: names the database SqlDialect: only the store may know it",
            "files import each other in a circle: http → operation",
            "hotels::repo uses operation, of a higher layer",
            "hotels::repo: a repo has SQL only: no messages",
            "operation uses its sibling http",
            "shared::x uses hotels, of a higher layer",
            "shared::x uses hotels::repo, of a higher layer",
            "shared::x uses http, of a higher layer",
        ]
    );
}

/// The modules a file declares out of line (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn declared_modules(text: &str) -> BTreeSet<String> {
    let t = tokens(&strip(text));
    let mut out = BTreeSet::new();
    for (i, w) in t.iter().enumerate() {
        if w == "mod" && t.get(i + 2).is_some_and(|s| s == ";") {
            out.insert(t[i + 1].clone());
        }
    }
    out
}

/// The names in the first column of a file's table of files (its first `//!` table whose head
/// is `| file |` or `| module |`), `mod.rs` left out; `None` when it has no such table.
fn listed_modules(text: &str) -> Option<BTreeSet<String>> {
    let mut rows = text.lines().map(str::trim_start).skip_while(|l| {
        let head = l.strip_prefix("//! |").map(|r| r.split('|').next().unwrap_or_default().trim());
        !matches!(head, Some("file" | "module"))
    });
    rows.next()?;
    let mut out = BTreeSet::new();
    for row in rows.skip(1).map_while(|l| l.strip_prefix("//! |")) {
        let cell = row.split('|').next().unwrap_or_default();
        for name in cell.split(',') {
            // `name`, [`name`], [`name`](mod@name), `name/`, `name.rs`
            let name = name.split('(').next().unwrap_or_default();
            let name = name.trim().trim_matches(|c| c == '[' || c == ']' || c == '`').trim_end_matches('/');
            let name = name.trim_end_matches(".rs");
            if !name.is_empty() && name != "mod" {
                out.insert(name.to_string());
            }
        }
    }
    Some(out)
}

/// Every module of more than one file says what each of its files is, in one table (the
/// module's `//!` doc), and the table names only files that exist: a newcomer reads the room's
/// door sign, not the directory listing.
#[test]
fn every_module_table_lists_its_files() {
    let mut wrong = Vec::new();
    for f in gateway() {
        let declared = declared_modules(&f.text);
        let name = if f.module.is_empty() { "lib.rs".to_string() } else { f.module.join("::") };
        match listed_modules(&f.text) {
            None if declared.len() > 1 => {
                wrong.push(format!("{name}: no table of its files (| file | what |) for {declared:?}"))
            }
            None => {}
            Some(listed) => {
                let missing: Vec<_> = declared.difference(&listed).collect();
                let stale: Vec<_> = listed.difference(&declared).collect();
                if !missing.is_empty() || !stale.is_empty() {
                    wrong.push(format!("{name}: the table omits {missing:?} and lists {stale:?}, which is no file"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "module tables out of date:\n{}", wrong.join("\n"));
}

#[test]
fn a_module_table_is_read() {
    let text = "//! Intro.\n//!\n//! | file | what |\n//! |---|---|\n//! | `mod.rs` | x |\n//! | [`a`], [`b`](mod@b) | y |\n//! | `c/` | z |\n//!\n//! | other | table |\n\nmod a;\npub mod b;\npub(crate) mod c;\nmod tests {}\n";
    assert_eq!(declared_modules(text), ["a", "b", "c"].into_iter().map(String::from).collect());
    assert_eq!(listed_modules(text), Some(["a", "b", "c"].into_iter().map(String::from).collect()));
    assert_eq!(listed_modules("//! | case | status |\n//! |---|---|\n//! | `a` | 1 |\n"), None);
}
