//! A one-attribute spec edit changes only the generated lines about that attribute, in at most
//! three places: fields are bound by name, never by position, so adding an attribute renumbers
//! nothing, and the codec is derived from the field's declaration (#27).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

/// The lines of `a` and `b` that a longest common subsequence leaves out: (removed, added, with
/// the added lines' positions in `b`).
fn changed_lines<'t>(a: &[&'t str], b: &[&'t str]) -> (Vec<&'t str>, Vec<(usize, &'t str)>) {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            added.push((j, b[j]));
            j += 1;
        } else {
            removed.push(a[i]);
            i += 1;
        }
    }
    (removed, added)
}

#[test]
fn adding_one_attribute_changes_only_its_own_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid_minimal");
    let before = ota_codegen::read_spec_dir(&dir).expect("read fixture");
    // One attribute, added before two others of the root (so a positional binding renumbers them).
    let anchor = r#"<xs:attributeGroup ref="Std"/>"#;
    let after: Vec<(String, String)> = before
        .iter()
        .map(|(name, text)| {
            let text = match name.as_str() {
                "ping.xsd" => {
                    assert!(text.contains(anchor), "the fixture changed: update the edit");
                    text.replacen(anchor, &format!(r#"{anchor}<xs:attribute name="Priority" type="xs:int"/>"#), 1)
                }
                _ => text.clone(),
            };
            (name.clone(), text)
        })
        .collect();
    let old = ota_codegen::generate(&before).expect("fixture generates");
    let new = ota_codegen::generate(&after).expect("edited fixture generates");
    // Each place: a run of consecutive added lines of one file.
    let (mut removed, mut places): (Vec<String>, Vec<Vec<String>>) = (Vec::new(), Vec::new());
    for (file, old_code) in &old.files {
        let new_code = new.files.get(file).expect("same files");
        let (r, a) = changed_lines(&old_code.lines().collect::<Vec<_>>(), &new_code.lines().collect::<Vec<_>>());
        removed.extend(r.into_iter().map(|l| format!("{file}: -{l}")));
        let mut last = None;
        for (at, line) in a {
            if last != Some(at.wrapping_sub(1)) {
                places.push(Vec::new());
            }
            places.last_mut().expect("a place").push(format!("{file}: +{line}"));
            last = Some(at);
        }
    }
    let changed = removed.len() + places.iter().map(Vec::len).sum::<usize>();
    println!(
        "one-attribute edit: {changed} generated lines changed ({} removed), in {} places",
        removed.len(),
        places.len()
    );
    for l in removed.iter().chain(places.iter().flatten()) {
        println!("  {l}");
    }
    // Only lines about the new attribute: no other field's line is touched, and each place
    // names it.
    assert!(removed.is_empty(), "lines of other fields changed:\n{}", removed.join("\n"));
    let foreign: Vec<&Vec<String>> =
        places.iter().filter(|p| !p.iter().any(|l| l.to_lowercase().contains("priority"))).collect();
    assert!(foreign.is_empty(), "places not about the new attribute:\n{foreign:#?}");
    // Today 2 places, 5 lines: the field (documentation, yaserde attribute, codec attribute,
    // declaration) and the table entry. (4 places, 7 lines, with a generated decoder arm and
    // encoder line; 19 lines when fields were bound by position.)
    assert!(places.len() <= 3, "the attribute is stated in {} places", places.len());
    assert!(changed <= 6, "{changed} lines changed for one attribute");
}
