//! How often an agent deliberates again: the reconsideration policies of Kinny and Georgeff
//! (1991). Deliberation applies the commitment law (releasing intentions whose goal is achieved,
//! impossible or no longer desired, as the agent's strategy says) and adopts new intentions.
//! Between deliberations the agent runs its plans without looking up.

use std::collections::BTreeSet;

/// When to deliberate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reconsideration {
    /// Only when no intention is running (the running plans have finished): suits stable worlds.
    Bold,
    /// Every cycle: suits fast-changing worlds.
    Cautious,
    /// When a belief of one of the named predicates has been added or removed since the last
    /// cycle (and on the first cycle): reconsider on evidence.
    OnChange(BTreeSet<String>),
}

impl Reconsideration {
    /// The policy's name as `hilbert run --policy` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Reconsideration::Bold => "bold",
            Reconsideration::Cautious => "cautious",
            Reconsideration::OnChange(_) => "on-change",
        }
    }

    /// Whether to deliberate this cycle, given whether any intention is running and which
    /// predicates changed since the previous cycle.
    pub fn deliberate(&self, first: bool, running: bool, changed: &BTreeSet<String>) -> bool {
        if first {
            return true;
        }
        match self {
            Reconsideration::Bold => !running,
            Reconsideration::Cautious => true,
            Reconsideration::OnChange(watched) => {
                !running || watched.iter().any(|w| changed.contains(w))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_deliberates_when_it_says() {
        let none = BTreeSet::new();
        let alarm: BTreeSet<String> = ["alarm".to_string()].into();
        assert!(Reconsideration::Bold.deliberate(true, true, &none));
        assert!(!Reconsideration::Bold.deliberate(false, true, &alarm));
        assert!(Reconsideration::Bold.deliberate(false, false, &none));
        assert!(Reconsideration::Cautious.deliberate(false, true, &none));
        let watch = Reconsideration::OnChange(alarm.clone());
        assert!(!watch.deliberate(false, true, &none));
        assert!(watch.deliberate(false, true, &alarm));
        let made: BTreeSet<String> = ["made".to_string()].into();
        assert!(!watch.deliberate(false, true, &made));
    }
}
