//! The pull: a supplier without a notification URL reads the bookings with events it has not
//! acknowledged (`OTA_ReadRQ` on `/bookread`) and acknowledges them (`OTA_NotifReportRQ` on
//! `/notifreport`).
