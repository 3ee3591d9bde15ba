//! `GET /operators` (admins only): every operator; add one (its password made here and shown
//! once; a hotel user with the supplier it belongs to), disable or enable one — through the functions `ota-gateway operator` calls
//! ([`crate::operators::admin`]), audited with the admin and their address.

use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use crate::audit::Actor;
use crate::console::ConsoleState;
use crate::console::layout::{self, csrf_field};
use crate::console::pages::{new_password, path_segment};
use crate::console::security::{Admin, Client};
use crate::operators::session::Session;
use crate::operators::{Role, admin};

/// The routes of this page.
pub fn routes() -> Router<ConsoleState> {
    Router::new()
        .route("/operators", get(list).post(add))
        .route("/operators/{name}/disable", post(disable))
        .route("/operators/{name}/enable", post(enable))
}

/// The page, with a notice on top (the outcome of a change).
async fn render(state: &ConsoleState, session: &Session, status: StatusCode, notice: Option<Markup>) -> Response {
    let listed = async {
        Ok::<_, crate::operators::OperatorError>((
            admin::list(&state.app.store).await?,
            admin::suppliers(&state.app.store).await?,
        ))
    };
    let (all, suppliers) = match listed.await {
        Ok(found) => found,
        Err(e) => {
            tracing::error!(error = %e, "console: operators");
            return layout::error(StatusCode::SERVICE_UNAVAILABLE, "The operators could not be read; try again.");
        }
    };
    let body = html! {
        @if let Some(n) = notice { (n) }
        table {
            thead { tr { th { "Name" } th { "Role" } th { "Supplier" } th { "Status" } th { "Created (UTC)" } th {} } }
            tbody {
                @for o in &all {
                    tr {
                        td { (o.name) }
                        td { (o.role.as_str()) }
                        td { @if let Some(sup) = &o.supplier { (sup) } @else { span.muted { "–" } } }
                        td { @if o.active { span.badge.on { "active" } } @else { span.badge.off { "disabled" } } }
                        td { (o.created.format("%Y-%m-%d %H:%M")) }
                        td {
                            @let (action, label) = if o.active { ("disable", "Disable") } else { ("enable", "Enable") };
                            form.inline method="post" action={ "/operators/" (path_segment(&o.name)) "/" (action) } {
                                (csrf_field(session))
                                button type="submit" { (label) }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Add an operator" }
        form.stack method="post" action="/operators" {
            (csrf_field(session))
            label for="name" { "Name" }
            input #name type="text" name="name" required;
            label for="role" { "Role" }
            select #role name="role" {
                option value="viewer" { "viewer (reads)" }
                option value="admin" { "admin (reads and changes)" }
                option value="hotel" { "hotel (a hotel's user: its supplier's extranet only)" }
            }
            label for="supplier" { "Supplier (a hotel user's)" }
            select #supplier name="supplier" {
                option value="" { "– (admins and viewers)" }
                @for sup in &suppliers {
                    option value=(sup) { (sup) }
                }
            }
            p { button type="submit" { "Add" } " " span.muted { "A password is made and shown once." } }
        }
    };
    layout::page_with_status(status, session, "Operators", body)
}

/// `GET /operators`.
async fn list(State(state): State<ConsoleState>, Admin(session): Admin) -> Response {
    render(&state, &session, StatusCode::OK, None).await
}

/// The add form's fields.
#[derive(Deserialize)]
struct NewOperator {
    name: String,
    role: String,
    #[serde(default)]
    supplier: String,
}

/// `POST /operators`: adds an operator with a new password, shown once.
async fn add(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    Client(client): Client,
    Form(f): Form<NewOperator>,
) -> Response {
    let Some(role) = Role::from_name(&f.role) else {
        let n = layout::notice(false, "The role is admin, viewer or hotel.");
        return render(&state, &session, StatusCode::UNPROCESSABLE_ENTITY, Some(n)).await;
    };
    let password = new_password();
    let actor = Actor::operator(&session.operator, client);
    // Admins and viewers have no supplier: the form's choice counts for a hotel user only.
    let supplier = Some(f.supplier.as_str()).filter(|s| role == Role::Hotel && !s.is_empty());
    match admin::add_with_supplier(&state.app.store, &actor, &f.name, role, supplier, password.clone()).await {
        Ok(()) => {
            let n = html! {
                p.notice.ok role="status" {
                    "Operator " strong { (f.name) } " added (" (role.as_str())
                    @if let Some(sup) = supplier { ", supplier " (sup) }
                    "). Its password, shown only now: "
                    span.secret { (password) }
                }
            };
            render(&state, &session, StatusCode::OK, Some(n)).await
        }
        Err(e) => {
            render(&state, &session, StatusCode::UNPROCESSABLE_ENTITY, Some(layout::notice(false, &e.to_string())))
                .await
        }
    }
}

/// Disables or enables an operator.
async fn set_active(state: ConsoleState, session: Session, client: Client, name: String, active: bool) -> Response {
    let actor = Actor::operator(&session.operator, client.0);
    match admin::set_active(&state.app.store, &actor, &name, active).await {
        Ok(()) => {
            let text = format!("Operator {name} {}.", if active { "enabled" } else { "disabled (its sessions ended)" });
            render(&state, &session, StatusCode::OK, Some(layout::notice(true, &text))).await
        }
        Err(e) => {
            render(&state, &session, StatusCode::UNPROCESSABLE_ENTITY, Some(layout::notice(false, &e.to_string())))
                .await
        }
    }
}

/// `POST /operators/{name}/disable`.
async fn disable(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    client: Client,
    Path(name): Path<String>,
) -> Response {
    set_active(state, session, client, name, false).await
}

/// `POST /operators/{name}/enable`.
async fn enable(
    State(state): State<ConsoleState>,
    Admin(session): Admin,
    client: Client,
    Path(name): Path<String>,
) -> Response {
    set_active(state, session, client, name, true).await
}
