//! Charset detection: which encoding a document declares, where, and what its bytes really are.
