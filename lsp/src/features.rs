//! The requests: hover, go to definition, find references, document symbols and completion,
//! each answered from a project's [`Snapshot`] (its parsed trees and their index), never from
//! a check, so that no answer waits on Z3.

use crate::index::{Declaration, Symbol};
use crate::text::{Encoding, LineIndex};
use crate::uri;
use crate::workspace::Snapshot;
use hilbert_frontend::syntax::ast::{MemberKind, Module};
use hilbert_frontend::syntax::keywords::{self, KEYWORDS, OPERATORS};
use hilbert_frontend::{Dialect, FileId, SourceFile, Span, explain};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, DocumentSymbol, Hover, HoverContents,
    Location, MarkupContent, MarkupKind, Range, SymbolKind, TextEdit,
};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Converts spans of a snapshot's files to the editor's ranges and locations.
pub struct Places<'s> {
    snapshot: &'s Snapshot,
    lines: HashMap<FileId, LineIndex>,
    encoding: Encoding,
}

impl<'s> Places<'s> {
    /// For `snapshot`, counting positions by `encoding`.
    pub fn new(snapshot: &'s Snapshot, encoding: Encoding) -> Places<'s> {
        Places {
            snapshot,
            lines: HashMap::new(),
            encoding,
        }
    }

    /// The range of `span` in its file.
    pub fn range(&mut self, span: Span) -> Range {
        let Some(file) = self.snapshot.sources.files().get(span.file.0 as usize) else {
            return Range::default();
        };
        let index = self
            .lines
            .entry(span.file)
            .or_insert_with(|| LineIndex::new(&file.text));
        index.range(
            &file.text,
            span.start as usize,
            span.end as usize,
            self.encoding,
        )
    }

    /// The location of `span`.
    pub fn location(&mut self, span: Span) -> Option<Location> {
        let file = self.snapshot.sources.files().get(span.file.0 as usize)?;
        let uri = uri::from_path(Path::new(&file.path))?;
        Some(Location::new(uri, self.range(span)))
    }
}

/// The hover at `offset` of `file`: the declaration and type of the name there, the
/// explanation of each diagnostic whose span holds it (`codes`), or what a keyword, an
/// operator or a code written in a comment means.
pub fn hover(
    snapshot: &Snapshot,
    file: &SourceFile,
    offset: u32,
    codes: &[String],
    encoding: Encoding,
) -> Option<Hover> {
    let mut parts: Vec<String> = Vec::new();
    let mut places = Places::new(snapshot, encoding);
    let mut range = None;
    if let Some(o) = snapshot.index.at(file.id, offset) {
        range = Some(places.range(o.span));
        let decls = snapshot.index.declarations(&o.symbol);
        if decls.is_empty() {
            parts.push(format!(
                "`{}`: no declaration of this {} was found",
                o.symbol.name(),
                o.symbol.kind()
            ));
        }
        for d in decls {
            parts.push(describe(snapshot, d));
        }
    } else if let Some((start, word)) = word_at(&file.text, offset as usize) {
        let span = Span::new(file.id, start..start + word.len());
        if let Some(e) = explain::lookup(word).filter(|_| word.len() == 6) {
            parts.push(explanation(e));
            range = Some(places.range(span));
        } else if let Some(k) = keywords::keyword(word) {
            let spelled = OPERATORS
                .iter()
                .find(|o| o.ascii == word)
                .map(|o| format!(" (also `{}`)", o.unicode))
                .unwrap_or_default();
            parts.push(format!("**`{}`**{spelled}: {}", k.word, k.doc));
            range = Some(places.range(span));
        }
    } else if let Some((start, o)) = operator_at(&file.text, offset as usize) {
        let len = if file.text[start..].starts_with(o.unicode) {
            o.unicode.len()
        } else {
            o.ascii.len()
        };
        parts.push(format!(
            "**`{}`** (ASCII `{}`): {}",
            o.unicode, o.ascii, o.meaning
        ));
        range = Some(places.range(Span::new(file.id, start..start + len)));
    }
    let mut seen = BTreeSet::new();
    for code in codes {
        if seen.insert(code.clone())
            && let Some(e) = explain::lookup(code)
        {
            parts.push(explanation(e));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range,
    })
}

/// A declaration for people: its signature as a code block, what it is, and where.
fn describe(snapshot: &Snapshot, d: &Declaration) -> String {
    let file = snapshot.sources.get(d.span.file);
    let (line, _) = file.line_col(d.span.start);
    let mut text = format!("```hilbert\n{}\n```\n", d.signature);
    text.push_str(&format!("*{}*", d.symbol.kind()));
    for c in &d.context {
        text.push_str(&format!(" · {c}"));
    }
    let name = Path::new(&file.path)
        .file_name()
        .map_or(file.path.as_str(), |n| n.to_str().unwrap_or(""));
    text.push_str(&format!("\n\ndeclared in `{name}`, line {line}"));
    text
}

/// A code's explanation page, as `hilbert explain CODE` prints it.
fn explanation(e: &explain::Explanation) -> String {
    format!(
        "**{}** ({}): {}\n\n{}",
        e.code,
        e.severity,
        e.title,
        e.markdown.trim_end()
    )
}

/// The word (a name, a keyword, a code) around byte `offset` of `text`, and where it starts.
fn word_at(text: &str, offset: usize) -> Option<(usize, &str)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (start < end).then(|| (start, &text[start..end]))
}

/// The two-way operator at byte `offset` of `text`, and where it starts.
fn operator_at(text: &str, offset: usize) -> Option<(usize, &'static keywords::Operator)> {
    let offset = offset.min(text.len());
    for o in OPERATORS {
        for spelling in [o.unicode, o.ascii] {
            if spelling.chars().all(char::is_alphabetic) {
                continue;
            }
            let from = offset.saturating_sub(spelling.len());
            for start in from..=offset {
                if text.is_char_boundary(start)
                    && text[start..].starts_with(spelling)
                    && start + spelling.len() >= offset
                {
                    return Some((start, o));
                }
            }
        }
    }
    None
}

/// Where the name at `offset` of `file` is declared.
pub fn definition(
    snapshot: &Snapshot,
    file: FileId,
    offset: u32,
    encoding: Encoding,
) -> Vec<Location> {
    let Some(o) = snapshot.index.at(file, offset) else {
        return Vec::new();
    };
    let mut places = Places::new(snapshot, encoding);
    snapshot
        .index
        .declarations(&o.symbol)
        .iter()
        .filter_map(|d| places.location(d.span))
        .collect()
}

/// Every place the name at `offset` of `file` is written, its declarations only if
/// `declarations`.
pub fn references(
    snapshot: &Snapshot,
    file: FileId,
    offset: u32,
    declarations: bool,
    encoding: Encoding,
) -> Vec<Location> {
    let Some(o) = snapshot.index.at(file, offset) else {
        return Vec::new();
    };
    let mut places = Places::new(snapshot, encoding);
    snapshot
        .index
        .references(&o.symbol)
        .into_iter()
        .filter(|r| declarations || !r.declaration)
        .filter_map(|r| places.location(r.span))
        .collect()
}

/// The outline of a file: agents with their members, plans with their channels, values
/// blocks with their options, values and policies.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written, as `None`.
pub fn symbols(snapshot: &Snapshot, file: FileId, encoding: Encoding) -> Vec<DocumentSymbol> {
    let Some(module) = snapshot.module(file) else {
        return Vec::new();
    };
    let mut places = Places::new(snapshot, encoding);
    let mut sym = |name: &str, detail: Option<String>, kind, full: Span, at: Span, children| {
        let range = places.range(full);
        let mut selection = places.range(at);
        // The selection must lie inside the range (recovery can leave a name outside).
        if selection.start < range.start || selection.end > range.end {
            selection = range;
        }
        DocumentSymbol {
            name: if name.is_empty() {
                "?".into()
            } else {
                name.into()
            },
            detail,
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: selection,
            children,
        }
    };
    let mut out = Vec::new();
    match module {
        Module::Agents(f) => {
            for a in &f.agents {
                let mut children = Vec::new();
                for m in &a.members {
                    let (name, kind, detail) = match &m.kind {
                        MemberKind::Belief { name, .. } => (name, SymbolKind::FIELD, "belief"),
                        MemberKind::Desire { name, .. } => (name, SymbolKind::EVENT, "desire"),
                        MemberKind::Attention { name, .. } => {
                            (name, SymbolKind::ENUM_MEMBER, "attention")
                        }
                        MemberKind::Value { name, .. } => (name, SymbolKind::CONSTANT, "value"),
                        MemberKind::Plan { name, .. } => (name, SymbolKind::FUNCTION, "plan"),
                        _ => continue,
                    };
                    children.push(sym(
                        &name.name,
                        Some(detail.into()),
                        kind,
                        m.span,
                        name.span,
                        None,
                    ));
                }
                out.push(sym(
                    &a.name.name,
                    Some("agent".into()),
                    SymbolKind::CLASS,
                    a.span,
                    a.name.span,
                    Some(children),
                ));
            }
        }
        Module::Plans(f) => {
            for p in &f.plans {
                let mut children = Vec::new();
                for c in &p.channels {
                    children.push(sym(
                        &c.name.name,
                        Some("channel".into()),
                        SymbolKind::VARIABLE,
                        c.name.span.to(c.ty.span),
                        c.name.span,
                        None,
                    ));
                }
                // The plan's labels, as the index found them.
                let stem = snapshot.sources.get(file).stem();
                let mut labels: Vec<&Declaration> = snapshot
                    .index
                    .all_declarations()
                    .filter(|d| {
                        d.span.file == file
                            && matches!(&d.symbol, Symbol::Label(s, plan, _)
                                if s == stem && *plan == p.name.name)
                    })
                    .collect();
                labels.sort_by_key(|d| d.span.start);
                for l in labels {
                    children.push(sym(
                        l.symbol.name(),
                        Some("label".into()),
                        SymbolKind::KEY,
                        l.span,
                        l.span,
                        None,
                    ));
                }
                out.push(sym(
                    &p.name.name,
                    Some("plan".into()),
                    SymbolKind::FUNCTION,
                    p.span,
                    p.name.span,
                    Some(children),
                ));
            }
        }
        Module::Values(f) => {
            for b in &f.blocks {
                let mut children = Vec::new();
                for o in &b.options {
                    children.push(sym(
                        &o.plan.name,
                        Some("option".into()),
                        SymbolKind::FUNCTION,
                        o.span,
                        o.plan.span,
                        None,
                    ));
                }
                for v in &b.values {
                    children.push(sym(
                        &v.name.name,
                        Some("value".into()),
                        SymbolKind::CONSTANT,
                        v.span,
                        v.name.span,
                        None,
                    ));
                }
                for p in &b.policies {
                    children.push(sym(
                        &p.name.name,
                        Some("policy".into()),
                        SymbolKind::PROPERTY,
                        p.span,
                        p.name.span,
                        None,
                    ));
                }
                out.push(sym(
                    &format!("values {}", b.agent.name),
                    Some("values".into()),
                    SymbolKind::NAMESPACE,
                    b.span,
                    b.agent.span,
                    Some(children),
                ));
            }
        }
    }
    out
}

/// The completions at byte `offset` of `file`: an operator's other spelling when the text
/// before the cursor ends with one (`->` offers `→`, `→` offers `->`); after `Stem.` the plans
/// of `Stem.hk`; otherwise the names declared where the cursor is and the dialect's keywords.
pub fn completion(
    snapshot: &Snapshot,
    file: &SourceFile,
    offset: usize,
    encoding: Encoding,
) -> Vec<CompletionItem> {
    let text = &file.text;
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let mut places = Places::new(snapshot, encoding);
    let mut items = Vec::new();
    // Operators: the spelling just before the cursor, replaced by the other.
    for o in OPERATORS {
        for (typed, other) in [(o.ascii, o.unicode), (o.unicode, o.ascii)] {
            let word = typed.chars().all(char::is_alphabetic);
            let preceded = before.strip_suffix(typed).is_some_and(|rest| {
                !word || !rest.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            });
            if !preceded {
                continue;
            }
            let start = offset - typed.len();
            let range = places.range(Span::new(file.id, start..offset));
            items.push(CompletionItem {
                label: other.to_string(),
                kind: Some(CompletionItemKind::OPERATOR),
                detail: Some(format!(
                    "{} — {typed} and {other} are one operator",
                    o.meaning
                )),
                filter_text: Some(typed.to_string()),
                sort_text: Some(format!("0{other}")),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                    range,
                    new_text: other.to_string(),
                })),
                ..Default::default()
            });
        }
    }
    // `Stem.` : the plans of that file.
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(offset, |(i, _)| i);
    let prefix_end = before[..word_start].trim_end_matches([' ', '\t']);
    if let Some(qualifier) = prefix_end.strip_suffix('.') {
        let q = qualifier
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .last()
            .map_or("", |(i, _)| &qualifier[i..]);
        let mut qualified = Vec::new();
        for d in snapshot.index.all_declarations() {
            match &d.symbol {
                Symbol::Plan(stem, _) if stem == q => qualified.push(item(d)),
                Symbol::BeliefField(_, belief, _) if belief == q => qualified.push(item(d)),
                _ => {}
            }
        }
        if !qualified.is_empty() {
            qualified.sort_by(|a, b| a.label.cmp(&b.label));
            qualified.dedup_by(|a, b| a.label == b.label);
            items.extend(qualified);
            return items;
        }
    }
    // Names in scope where the cursor is.
    let context = Context::at(snapshot, file, offset as u32);
    let mut names: Vec<CompletionItem> = snapshot
        .index
        .all_declarations()
        .filter(|d| context.sees(&d.symbol))
        .map(item)
        .collect();
    names.sort_by(|a, b| a.label.cmp(&b.label));
    names.dedup_by(|a, b| a.label == b.label && a.kind == b.kind);
    items.extend(names);
    for k in KEYWORDS
        .iter()
        .filter(|k| k.dialects.contains(&file.dialect))
    {
        items.push(CompletionItem {
            label: k.word.to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            detail: Some(k.doc.to_string()),
            sort_text: Some(format!("2{}", k.word)),
            ..Default::default()
        });
    }
    items
}

/// A declared name as a completion.
fn item(d: &Declaration) -> CompletionItem {
    let kind = match d.symbol {
        Symbol::Agent(_) => CompletionItemKind::CLASS,
        Symbol::Belief(..) | Symbol::BeliefField(..) => CompletionItemKind::FIELD,
        Symbol::Desire(..) => CompletionItemKind::EVENT,
        Symbol::Attention(..) => CompletionItemKind::ENUM_MEMBER,
        Symbol::Binding(..) | Symbol::Plan(..) => CompletionItemKind::FUNCTION,
        Symbol::AgentValue(..) | Symbol::BlockValue(..) => CompletionItemKind::CONSTANT,
        Symbol::PlanFile(_) => CompletionItemKind::MODULE,
        Symbol::AgentParam(..) | Symbol::PlanParam(..) => CompletionItemKind::VARIABLE,
        Symbol::Channel(..) => CompletionItemKind::VARIABLE,
        Symbol::Label(..) => CompletionItemKind::REFERENCE,
        Symbol::Variable(..) => CompletionItemKind::VARIABLE,
    };
    CompletionItem {
        label: d.symbol.name().to_string(),
        kind: Some(kind),
        detail: Some(d.signature.clone()),
        sort_text: Some(format!("1{}", d.symbol.name())),
        ..Default::default()
    }
}

/// Where the cursor is: which agent's names, which plan's, which values block's are in scope.
struct Context {
    dialect: Dialect,
    /// The agent whose names are in scope (the enclosing agent, a plan's agent, a block's).
    agent: Option<String>,
    /// The `.hk` file's stem and the enclosing plan.
    plan: Option<(String, String)>,
    stem: Option<String>,
}

impl Context {
    fn at(snapshot: &Snapshot, file: &SourceFile, offset: u32) -> Context {
        let mut cx = Context {
            dialect: file.dialect,
            agent: None,
            plan: None,
            stem: None,
        };
        let Some(module) = snapshot.module(file.id) else {
            return cx;
        };
        // The enclosing declaration, or the last one that begins before the cursor (a
        // half-typed one may not cover it).
        let near = |span: Span| span.start <= offset;
        match module {
            Module::Agents(f) => {
                cx.agent = f
                    .agents
                    .iter()
                    .rfind(|a| near(a.span))
                    .or(f.agents.first())
                    .map(|a| a.name.name.to_string());
            }
            Module::Plans(f) => {
                let stem = file.stem().to_string();
                let plan = f.plans.iter().rfind(|p| near(p.span)).or(f.plans.first());
                cx.agent = plan
                    .and_then(|p| p.agent.as_ref())
                    .map(|a| a.name.to_string());
                cx.plan = plan.map(|p| (stem.clone(), p.name.name.to_string()));
                cx.stem = Some(stem);
            }
            Module::Values(f) => {
                cx.agent = f
                    .blocks
                    .iter()
                    .rfind(|b| near(b.span))
                    .or(f.blocks.first())
                    .map(|b| b.agent.name.to_string());
            }
        }
        cx
    }

    fn sees(&self, s: &Symbol) -> bool {
        let agent = |a: &String| self.agent.as_ref() == Some(a);
        let plan = |st: &String, p: &String| {
            self.plan
                .as_ref()
                .is_some_and(|(s2, p2)| s2 == st && p2 == p)
        };
        match (self.dialect, s) {
            (_, Symbol::Agent(_)) => true,
            (Dialect::Agent, Symbol::PlanFile(_)) => true,
            (Dialect::Agent, Symbol::AgentParam(a, _))
            | (Dialect::Agent, Symbol::Belief(a, _))
            | (Dialect::Agent, Symbol::Desire(a, _))
            | (Dialect::Agent, Symbol::Attention(a, _))
            | (Dialect::Agent, Symbol::Binding(a, _))
            | (Dialect::Agent, Symbol::AgentValue(a, _)) => agent(a),
            // A plan believes its agent's beliefs and tells other agents theirs.
            (Dialect::Plans, Symbol::Belief(..)) => true,
            (Dialect::Plans, Symbol::Plan(stem, _)) => self.stem.as_ref() == Some(stem),
            (Dialect::Plans, Symbol::PlanParam(st, p, _))
            | (Dialect::Plans, Symbol::Channel(st, p, _))
            | (Dialect::Plans, Symbol::Label(st, p, _)) => plan(st, p),
            (Dialect::Values, Symbol::Binding(a, _))
            | (Dialect::Values, Symbol::Belief(a, _))
            | (Dialect::Values, Symbol::AgentParam(a, _))
            | (Dialect::Values, Symbol::BlockValue(a, _)) => agent(a),
            _ => false,
        }
    }
}
