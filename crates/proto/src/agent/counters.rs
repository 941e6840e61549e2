//! What an agent counted, by name: each agent declares its own counters (no union of every
//! agent's), and its host reads them as `(name, value)` pairs, the names being the keys of the
//! run's results (docs/outputs.md).

/// An agent's counters as `(name, value)` pairs, in the agent's own order. A name may repeat
/// when an agent reports another's (a handoff base station, its inner agent's): [`Counters::get`]
/// adds them up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters(pub Vec<(&'static str, u64)>);

impl Counters {
    /// The value of `name`, 0 when the agent does not count it.
    pub fn get(&self, name: &str) -> u64 {
        self.0
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .sum()
    }

    /// `other`'s counters after these.
    pub fn extend(&mut self, other: Counters) {
        self.0.extend(other.0);
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().copied()
    }
}

/// Declares an agent's counters: a struct of `u64` fields and `named()`, which lists them as
/// [`Counters`] in declaration order under the fields' names.
macro_rules! agent_counters {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $field:ident,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fm])* pub $field: u64,)*
        }

        impl $name {
            /// These counters by name.
            pub fn named(&self) -> $crate::agent::Counters {
                $crate::agent::Counters(vec![$((stringify!($field), self.$field)),*])
            }
        }
    };
}
pub(crate) use agent_counters;

#[cfg(test)]
mod tests {

    agent_counters! {
        /// Two counters.
        pub struct Two {
            pub a,
            /// The second.
            pub b,
        }
    }

    #[test]
    fn named_counters_keep_their_order_and_add_up_repeated_names() {
        let mut c = Two { a: 1, b: 2 }.named();
        assert_eq!(c.0, vec![("a", 1), ("b", 2)]);
        c.extend(Two { a: 10, b: 0 }.named());
        assert_eq!(c.get("a"), 11);
        assert_eq!(c.get("b"), 2);
        assert_eq!(c.get("c"), 0);
    }
}
