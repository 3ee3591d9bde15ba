//! The register of Client references (`client_reference`), which makes a partner's reference
//! name one booking of either kind: every area claims a reference here, in its own write
//! transaction, before it stores a booking.

use crate::shared::booking::Kind;
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

/// What claiming a Client reference found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The reference is now this booking's.
    Claimed,
    /// A booking of this kind has it already.
    Taken(Kind),
}

row! {
    /// A `client_reference` row's kind.
    struct KindRow { kind: String }
}

fn kind_of(s: &str) -> Result<Kind, StoreError> {
    match s {
        "hotel" => Ok(Kind::Hotel),
        "activity" => Ok(Kind::Activity),
        other => Err(StoreError::Data(format!("client_reference kind {other:?}"))),
    }
}

/// Claims a requestor's Client reference for a new booking of `kind`, in the caller's write
/// transaction. A concurrent claim of the same reference waits for this transaction and then
/// finds it taken.
pub(crate) async fn claim(c: &mut Conn<'_>, owner: &str, client_ref: &str, kind: Kind) -> Result<Claim, StoreError> {
    let inserted: Option<Scalar<String>> = c
        .query_opt(
            "INSERT INTO client_reference (requestor_id, client_ref, kind) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING kind",
            &[&owner, &client_ref, &kind.as_str()],
        )
        .await?;
    if inserted.is_some() {
        return Ok(Claim::Claimed);
    }
    Ok(Claim::Taken(
        find(c, owner, client_ref)
            .await?
            .ok_or_else(|| StoreError::Data(format!("client reference {client_ref:?} vanished")))?,
    ))
}

/// The kind of booking a requestor's Client reference names, if any.
pub(crate) async fn find(c: &mut Conn<'_>, owner: &str, client_ref: &str) -> Result<Option<Kind>, StoreError> {
    let row: Option<KindRow> = c
        .query_opt(
            "SELECT kind FROM client_reference WHERE requestor_id = $1 AND client_ref = $2",
            &[&owner, &client_ref],
        )
        .await?;
    row.map(|r| kind_of(&r.kind)).transpose()
}

/// Frees a Client reference (an imported booking replaced by another).
pub(crate) async fn release(c: &mut Conn<'_>, owner: &str, client_ref: &str, kind: Kind) -> Result<(), StoreError> {
    c.execute(
        "DELETE FROM client_reference WHERE requestor_id = $1 AND client_ref = $2 AND kind = $3",
        &[&owner, &client_ref, &kind.as_str()],
    )
    .await?;
    Ok(())
}

/// True when a reference of a requestor's own names one of its activity bookings: its Client
/// reference (registered as an activity's) or its Internal one.
pub(crate) async fn owns_activity(
    c: &mut Conn<'_>,
    owner: &str,
    client_ref: Option<&str>,
    internal_ref: Option<&str>,
) -> Result<bool, StoreError> {
    if let Some(client_ref) = client_ref
        && find(c, owner, client_ref).await? == Some(Kind::Activity)
    {
        return Ok(true);
    }
    let Some(internal_ref) = internal_ref else { return Ok(false) };
    Ok(c.query_opt::<Scalar<i64>>(
        "SELECT id FROM activity_booking WHERE reference = $1 AND requestor_id = $2",
        &[&internal_ref, &owner],
    )
    .await?
    .is_some())
}

/// True when an activity booking has this Internal reference (an imported hotel booking may not
/// take it: a read or cancel by Internal reference would find the wrong booking).
pub(crate) async fn internal_of_activity(c: &mut Conn<'_>, reference: &str) -> Result<bool, StoreError> {
    Ok(c.query_opt::<Scalar<i64>>("SELECT id FROM activity_booking WHERE reference = $1", &[&reference])
        .await?
        .is_some())
}
