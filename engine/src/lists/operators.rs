//! The operator prefixes of filter names (`min_price`, `not_status`): one
//! table that the served list conventions (`lists::conventions`) and the
//! app model's reading of recorded names (`rea-derivation`'s
//! `model::lists::conventions`) both read, each entry saying which of the
//! two uses it.

use crate::lists::semantics::Op;

/// One operator prefix of a filter name: `<prefix><field>` filters
/// `field` with `op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorPrefix {
    pub prefix: &'static str,
    pub op: Op,
    /// The served conventions offer `<prefix><field>` for every field of a
    /// type (a convention parameter of every list tool).
    pub offered: bool,
    /// The app model reads a recorded name spelled `<prefix><field>` as
    /// that filter (a hypothesis its replay keeps or drops).
    pub read: bool,
}

const fn both(prefix: &'static str, op: Op) -> OperatorPrefix {
    OperatorPrefix {
        prefix,
        op,
        offered: true,
        read: true,
    }
}

/// Every operator prefix. No prefix is the start of another, so a name
/// spells at most one. `in_` (equality with any value of a comma list) is
/// offered with a type's known field names but not read from recorded
/// names, where `in_stock` is a field far more often than a filter;
/// `gte_`, `lte_` and `exclude_` are read from recorded names and not
/// offered.
pub const OPERATOR_PREFIXES: &[OperatorPrefix] = &[
    both("not_", Op::Ne),
    OperatorPrefix {
        prefix: "in_",
        op: Op::Eq,
        offered: true,
        read: false,
    },
    both("min_", Op::Gte),
    both("max_", Op::Lte),
    both("gt_", Op::Gt),
    both("lt_", Op::Lt),
    OperatorPrefix {
        prefix: "gte_",
        op: Op::Gte,
        offered: false,
        read: true,
    },
    OperatorPrefix {
        prefix: "lte_",
        op: Op::Lte,
        offered: false,
        read: true,
    },
    OperatorPrefix {
        prefix: "exclude_",
        op: Op::Ne,
        offered: false,
        read: true,
    },
];

/// The prefixes the served conventions offer.
pub fn offered() -> impl Iterator<Item = &'static OperatorPrefix> {
    OPERATOR_PREFIXES.iter().filter(|p| p.offered)
}

/// The prefixes a recorded name is read by.
pub fn read() -> impl Iterator<Item = &'static OperatorPrefix> {
    OPERATOR_PREFIXES.iter().filter(|p| p.read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_prefix_starts_another() {
        for a in OPERATOR_PREFIXES {
            for b in OPERATOR_PREFIXES {
                assert!(
                    a.prefix == b.prefix || !b.prefix.starts_with(a.prefix),
                    "{} starts {}",
                    a.prefix,
                    b.prefix
                );
            }
        }
    }

    #[test]
    fn offered_and_read_as_before_the_table() {
        let names = |it: &mut dyn Iterator<Item = &'static OperatorPrefix>| {
            it.map(|p| p.prefix).collect::<Vec<_>>()
        };
        assert_eq!(
            names(&mut offered()),
            ["not_", "in_", "min_", "max_", "gt_", "lt_"]
        );
        assert_eq!(
            names(&mut read()),
            ["not_", "min_", "max_", "gt_", "lt_", "gte_", "lte_", "exclude_"]
        );
    }
}
