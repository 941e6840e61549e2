//! The one error type at the library's boundary. Its text is exactly the message the command line
//! prints after `error:` (and the Python package raises), so a caller can match on the kind and
//! still show the user the same words.

/// Why an experiment could not be set up or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A setting, a scenario (file, TOML or JSON) or a sweep's grid is not valid; the message
    /// names the setting and says what is allowed.
    #[error("{0}")]
    Invalid(String),
    /// A file named in the settings could not be read.
    #[error("{0}")]
    File(String),
    /// The worker threads could not be started.
    #[error("{0}")]
    Threads(String),
    /// The caller's cancel flag was raised before every run had finished.
    #[error("interrupted")]
    Cancelled,
}

impl Error {
    /// A bad setting, from the simulator's string messages.
    pub fn invalid(msg: impl Into<String>) -> Error {
        Error::Invalid(msg.into())
    }
}

/// The command line reports every error as its one line of text.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}
