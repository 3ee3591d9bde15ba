//! Which hotels a console session may see: the one rule every extranet page asks
//! ([`may_see_hotel`]). A hotel user sees its supplier's hotels (`supplier_hotel`) and nothing
//! else; an admin or a viewer sees every hotel (they look at any hotel's extranet for support).

use serde::Serialize;

use super::Role;
use super::repo;
use super::session::Session;
use crate::store::{Store, StoreError};

/// True when `session` may see the hotel `hotel`: a hotel user when the hotel is its supplier's;
/// an admin or a viewer always. Every extranet page decides with this function, and answers a
/// hotel (or a booking of a hotel) it may not see exactly as one that does not exist.
pub async fn may_see_hotel(store: &Store, session: &Session, hotel: &str) -> Result<bool, StoreError> {
    match (session.role, session.supplier.clone()) {
        (Role::Hotel, Some(supplier)) => {
            let hotel = hotel.to_string();
            store.read(move |c| Box::pin(async move { repo::supplier_has_hotel(c, &supplier, &hotel).await })).await
        }
        (Role::Hotel, None) => Ok(false),
        (Role::Admin | Role::Viewer, _) => Ok(true),
    }
}

/// The hotel codes of a supplier (a requestor of kind `supplier`), in order; none for another
/// requestor or an unknown id.
pub async fn hotels_of(store: &Store, supplier: &str) -> Result<Vec<String>, StoreError> {
    let supplier = supplier.to_string();
    store.read(move |c| Box::pin(async move { repo::hotels_of(c, &supplier).await })).await
}

/// A hotel a session may see in the extranet, with its supplier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopedHotel {
    /// Its code.
    pub code: String,
    /// Its supplier's id.
    pub supplier: String,
}

/// The hotels `session` may see in the extranet, by code: a hotel user's supplier's; for an
/// admin or a viewer every hotel that has a supplier (each one [`may_see_hotel`] admits).
pub async fn hotels(store: &Store, session: &Session) -> Result<Vec<ScopedHotel>, StoreError> {
    let rows = store.read(|c| Box::pin(async move { repo::supplier_hotels(c).await })).await?;
    Ok(rows
        .into_iter()
        .filter(|r| match session.role {
            Role::Hotel => session.supplier.as_deref() == Some(r.requestor_id.as_str()),
            Role::Admin | Role::Viewer => true,
        })
        .map(|r| ScopedHotel { code: r.hotel_code, supplier: r.requestor_id })
        .collect())
}
