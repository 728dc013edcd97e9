//! [`Name`]: the text of an identifier, shared.
//!
//! A large plan names the same few beliefs, channels and plans hundreds of thousands of times.
//! The parser interns each file's names, so every occurrence of `made` holds one pointer to one
//! allocation rather than a `String` of its own (24 bytes plus a heap block each; issue 17 measured
//! 93 bytes of memory per source byte before). A `Name` reads as a `&str` everywhere.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An identifier's text: immutable, cheap to clone (a reference count), compared by content.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name(Arc<str>);

impl Name {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Arc::from(s))
    }
}

impl From<&Name> for String {
    fn from(n: &Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

#[cfg(test)]
mod tests {
    use super::Name;
    use std::collections::HashMap;

    #[test]
    fn reads_and_compares_as_its_text() {
        let n = Name::from("made");
        assert_eq!(n, "made");
        assert_eq!("made", n);
        assert_eq!(n, "made".to_string());
        assert_ne!(n, Name::from("mad"));
        assert_eq!(n.len(), 4);
        assert_eq!(format!("{n} {n:?}"), "made \"made\"");
        let mut m = HashMap::new();
        m.insert(n.clone(), 1);
        assert_eq!(m.get("made"), Some(&1));
    }
}
