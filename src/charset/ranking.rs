//! Ordering candidates the way HTML::Encoding does, but deterministically.
//!
//! The Perl module collects candidates in a hash and sorts its keys by a score (BOM length,
//! match length, number of matches). Hash order is random in Perl, so ties come out in any
//! order: the documentation's "ISO-8859-1 or UTF-8". Here ties keep the order in which the
//! candidates were found, which is the order of the suspected-encodings list, and duplicates are
//! dropped.

/// Orders `scored` by descending score; ties keep their input order; duplicates are dropped.
pub(crate) fn by_descending_score<T: PartialEq>(mut scored: Vec<(T, usize)>) -> Vec<T> {
    scored.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    let mut ranked: Vec<T> = Vec::with_capacity(scored.len());
    for (item, _) in scored {
        if !ranked.contains(&item) {
            ranked.push(item);
        }
    }
    ranked
}

/// Orders distinct items by how often they occur, most frequent first; ties by first sight.
pub(crate) fn by_frequency<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut counted: Vec<(T, usize)> = Vec::new();
    for item in items {
        match counted.iter_mut().find(|(seen, _)| *seen == item) {
            Some((_, count)) => *count += 1,
            None => counted.push((item, 1)),
        }
    }
    by_descending_score(counted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_keep_input_order() {
        assert_eq!(
            by_descending_score(vec![("a", 1), ("b", 2), ("c", 1)]),
            ["b", "a", "c"]
        );
    }

    #[test]
    fn frequency_orders_by_count_then_first_sight() {
        assert_eq!(
            by_frequency(["x", "y", "y", "z", "x", "y"]),
            ["y", "x", "z"]
        );
    }
}
