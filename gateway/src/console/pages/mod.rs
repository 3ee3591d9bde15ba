//! The console's pages, one file each. A page is a file here with
//! `pub fn routes() -> Router<ConsoleState>`, registered in [`routes`] (one line) and, when it
//! has a place in the navigation, in [`NAV`] (one line). Its handlers take
//! [`Viewer`](super::security::Viewer) to read (an operator without a session is sent to the
//! login page) or [`Admin`](super::security::Admin) to change (a viewer gets 403), answer
//! [`layout::page`](super::layout::page), and put [`layout::csrf_field`](super::layout::csrf_field)
//! in every form that changes something (the CSRF check itself is done for every request before
//! any handler runs). They ask the library what the CLI asks (one code path), and a change calls
//! the function the CLI calls, with the operator as the audit's [`Actor`](crate::audit::Actor)
//! (`Actor::operator(&session.operator, client)`, the address from
//! [`Client`](super::security::Client)).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`routes`], [`NAV`], [`new_password`], [`path_segment`], [`next_page`] |
//! | [`login`] | `GET/POST /login`, `POST /logout` |
//! | [`home`] | `GET /`: the overview |
//! | [`partners`] | `GET /partners`, `GET /partners/{id}`: the requestors; an admin creates them |
//! | [`partner_changes`] | `POST /partners/{id}/…`: an admin changes one (limits, dialect, addresses, log, notification URL, alerts, password, disabling) |
//! | [`log`] | `GET /log`, `GET /log/{id}`: the transaction log searched, an entry's request and answer; its replay (admins only) |
//! | [`audit`] | `GET /audit`: the audit trail |
//! | [`traffic`] | `GET /traffic`: every gateway's traffic per partner and operation (chart, worst lines, error codes) |
//! | [`operators`] | `GET /operators`, adding, disabling and enabling operators (admins only) |
//! | [`bookings`] | `GET /bookings`, `GET /bookings/{ref}`: finding any booking, and one booking whole |
//! | [`calendar`] | `GET/POST /extranet/hotels/{code}/calendar`: a hotel's calendar (rooms, restrictions, amounts per night, who set each) and an edit of a range |
//! | [`deliveries`] | `GET /deliveries`: a booking's or a supplier's deliveries to the hotel; resending an event (admins only) |
//! | [`extranet`] | `GET /extranet`: the hotel extranet's home, the hotels a session may see with their bookings counted |
//! | [`extranet_bookings`] | `GET /extranet/bookings`, `GET /extranet/bookings/{ref}`, acknowledging one, `GET /extranet/arrivals`: a supplier's bookings |

pub mod audit;
pub mod bookings;
pub mod calendar;
pub mod deliveries;
pub mod extranet;
pub mod extranet_bookings;
pub mod home;
pub mod log;
pub mod login;
pub mod operators;
pub mod partner_changes;
pub mod partners;
pub mod traffic;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use axum::Router;

use super::ConsoleState;
use crate::operators::Role;

/// An entry of the navigation bar.
#[derive(Debug, Clone, Copy)]
pub struct NavItem {
    /// Where it leads.
    pub path: &'static str,
    /// What it says.
    pub label: &'static str,
    /// For whom: the roles it is shown to (the page itself checks too, on the server).
    pub roles: &'static [Role],
}

/// Admins and viewers: the operators' pages.
const OPERATORS: &[Role] = &[Role::Admin, Role::Viewer];
/// Admins only.
const ADMINS: &[Role] = &[Role::Admin];
/// Hotel users only: their extranet.
const HOTELS: &[Role] = &[Role::Hotel];

/// The navigation bar, in order; each session sees the entries for its role (a hotel user only
/// the extranet's).
pub const NAV: &[NavItem] = &[
    NavItem { path: "/", label: "Overview", roles: OPERATORS },
    NavItem { path: "/bookings", label: "Bookings", roles: OPERATORS },
    NavItem { path: "/deliveries", label: "Deliveries", roles: OPERATORS },
    NavItem { path: "/partners", label: "Partners", roles: OPERATORS },
    NavItem { path: "/traffic", label: "Traffic", roles: OPERATORS },
    NavItem { path: "/log", label: "Log", roles: OPERATORS },
    NavItem { path: "/audit", label: "Audit", roles: OPERATORS },
    NavItem { path: "/operators", label: "Operators", roles: ADMINS },
    NavItem { path: "/extranet", label: "Extranet", roles: OPERATORS },
    NavItem { path: "/extranet", label: "Hotels", roles: HOTELS },
    NavItem { path: "/extranet/bookings", label: "Bookings", roles: HOTELS },
    NavItem { path: "/extranet/arrivals", label: "Arrivals", roles: HOTELS },
];

/// Every page's routes.
pub fn routes() -> Router<ConsoleState> {
    Router::new()
        .merge(login::routes())
        .merge(home::routes())
        .merge(bookings::routes())
        .merge(calendar::routes())
        .merge(deliveries::routes())
        .merge(partners::routes())
        .merge(partner_changes::routes())
        .merge(audit::routes())
        .merge(traffic::routes())
        .merge(log::routes())
        .merge(operators::routes())
        .merge(extranet::routes())
        .merge(extranet_bookings::routes())
}

/// A new random password (20 letters and digits, about 119 bits), to be shown once.
pub fn new_password() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut out = String::with_capacity(20);
    while out.len() < 20 {
        let mut byte = [0u8; 1];
        OsRng.fill_bytes(&mut byte);
        // Rejection sampling: every letter equally likely.
        let b = usize::from(byte[0]);
        if b < 256 - 256 % ALPHABET.len() {
            out.push(char::from(ALPHABET[b % ALPHABET.len()]));
        }
    }
    out
}

/// The address of a bookings search's next page: `path`, then `first` (empty, or fields ending
/// in `&`), every filter `query` gives, and the cursor.
pub fn next_page(path: &str, first: &str, query: &crate::bookings::search::Query, cursor: &str) -> String {
    let mut parts: Vec<String> = query.given().into_iter().map(|(k, v)| format!("{k}={}", path_segment(v))).collect();
    parts.push(format!("after={}", path_segment(cursor)));
    format!("{path}?{first}{}", parts.join("&"))
}

/// A value as one segment of a URL path (`/partners/{id}`): every byte but the unreserved
/// ones percent-encoded, so an id with `/`, `?`, `#`, `"` or `<` stays one segment (axum's
/// `Path` decodes it back).
pub fn path_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_segments() {
        let (a, b) = (new_password(), new_password());
        assert_eq!(a.len(), 20);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(path_segment("A b/<c>?"), "A%20b%2F%3Cc%3E%3F");
        assert_eq!(path_segment("é"), "%C3%A9");
    }
}
