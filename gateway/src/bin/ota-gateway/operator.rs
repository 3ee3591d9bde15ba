//! `ota-gateway operator …`: administers the console's operators (each change audited as
//! `cli:<OS user>`).

use std::process::ExitCode;

use ota_gateway::Location;
use ota_gateway::audit::Actor;
use ota_gateway::config::DEFAULT_DB;
use ota_gateway::operators::{Operator, OperatorError, Role, admin};

use crate::requestor::read_password;
use crate::shared::{open_store, report, to_json};

/// The arguments of `operator`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: OperatorCommand,
    /// The database: a SQLite file or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_DB, env = "OTA_GATEWAY_DB", global = true)]
    db: Location,
}

#[derive(clap::Subcommand)]
enum OperatorCommand {
    /// Creates an operator; its password is read from a prompt (or from stdin's first line
    /// when stdin is not a terminal).
    Add {
        /// The login name (letters, digits, '.', '-', '_', '@').
        name: String,
        /// `admin` (reads and changes), `viewer` (reads only) or `hotel` (a hotel's user: the
        /// extranet of its supplier's hotels only; needs `--supplier`).
        #[arg(long, value_enum)]
        role: Role,
        /// A hotel user's supplier: the id of a requestor of kind supplier (`requestor add ID
        /// --supplier --hotels …`), whose hotels it sees.
        #[arg(long, value_name = "SUP")]
        supplier: Option<String>,
    },
    /// Sets an operator's password (read from a prompt, or stdin's first line); its console
    /// sessions end.
    Passwd {
        /// The operator's name.
        name: String,
    },
    /// Disables an operator: it cannot log in, and its console sessions end at once.
    Disable {
        /// The operator's name.
        name: String,
    },
    /// Enables a disabled operator.
    Enable {
        /// The operator's name.
        name: String,
    },
    /// Lists the operators (never their passwords).
    List {
        /// One JSON document: an array of objects.
        #[arg(long)]
        json: bool,
    },
}

/// Runs one operator command.
pub async fn run(Args { command, db }: Args) -> ExitCode {
    let store = match open_store(&db).await {
        Ok(s) => s,
        Err(code) => return code,
    };
    let actor = Actor::cli();
    let done = match command {
        OperatorCommand::Add { name, role, supplier } => match read_password(&name) {
            Ok(password) => admin::add_with_supplier(&store, &actor, &name, role, supplier.as_deref(), password)
                .await
                .map(|()| match &supplier {
                    Some(sup) if role == Role::Hotel => format!("operator {name} created (hotel, supplier {sup})"),
                    _ => format!("operator {name} created ({})", role.as_str()),
                }),
            Err(e) => Err(OperatorError::Invalid(e)),
        },
        OperatorCommand::Passwd { name } => match read_password(&name) {
            Ok(password) => admin::passwd(&store, &actor, &name, password)
                .await
                .map(|()| format!("password of {name} changed; its sessions ended")),
            Err(e) => Err(OperatorError::Invalid(e)),
        },
        OperatorCommand::Disable { name } => admin::set_active(&store, &actor, &name, false)
            .await
            .map(|()| format!("operator {name} disabled; its sessions ended")),
        OperatorCommand::Enable { name } => {
            admin::set_active(&store, &actor, &name, true).await.map(|()| format!("operator {name} enabled"))
        }
        OperatorCommand::List { json } => {
            admin::list(&store).await.map(|all| if json { to_json(&all) } else { table(&all) })
        }
    };
    report(done)
}

/// `operator list`: one line per operator.
fn table(all: &[Operator]) -> String {
    let mut out = format!("{:<32} {:<8} {:<8} {:<20} SUPPLIER", "NAME", "ROLE", "ACTIVE", "CREATED");
    for o in all {
        out.push_str(&format!(
            "\n{:<32} {:<8} {:<8} {:<20} {}",
            o.name,
            o.role.as_str(),
            if o.active { "yes" } else { "no" },
            o.created.format("%Y-%m-%dT%H:%M:%SZ"),
            o.supplier.as_deref().unwrap_or("-")
        ));
    }
    out
}
