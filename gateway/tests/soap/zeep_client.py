#!/usr/bin/env python3
"""A SOAP client of the gateway built with zeep from its published WSDL (GET /wsdl).

    zeep_client.py BASE_URL

Reads the demo booking DEMO-2030-0001 three ways and prints one line per check, then "ok":
with the POS in the OTA message; with a WS-Security UsernameToken standing for it (no POS);
and with a wrong UsernameToken password (an OTA authentication error inside the envelope, not
a SOAP Fault). Exit 1 on the first failed check. Needs Debian's python3-zeep.
"""

import sys

from zeep import Client, Settings
from zeep.wsse.username import UsernameToken

BASE = sys.argv[1].rstrip("/")
REFERENCE = {"Type": "36", "ID": "DEMO-2030-0001", "ID_Context": "Client"}
POS = {
    "Source": [
        {"RequestorID": {"Type": "22", "ID": "DEMO", "ID_Context": "DEMO-DIST"}},
        {"RequestorID": {"Type": "88", "ID": "DEMO", "MessagePassword": "demo-password"}},
    ]
}


def check(what, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {what} {detail}")
    if not ok:
        sys.exit(1)


def read(client, pos):
    service = client.bind("OtaGateway", "ReadPort")
    return service.Read(Version="2008.1", POS=pos, UniqueID=REFERENCE)


settings = Settings(strict=True)
plain = Client(f"{BASE}/wsdl", settings=settings)
answer = read(plain, POS)
# zeep reads an empty element (<Success/>) as None: success is no Errors and the booking.
check("POS in the message: no Errors", answer.Errors is None, repr(answer.Errors))
ids = [u.ID for u in answer.ReservationsList.HotelReservation[0].UniqueID]
check("POS in the message: the booking", "DEMO-2030-0001" in ids, repr(ids))

token = Client(f"{BASE}/wsdl", settings=settings, wsse=UsernameToken("DEMO", "demo-password"))
# No POS at all: the WSDL's schemas make it optional, so a strict toolkit sends the token alone.
answer = read(token, None)
check("UsernameToken for the POS: no Errors", answer.Errors is None, repr(answer.Errors))
check("UsernameToken for the POS: the booking", answer.ReservationsList.HotelReservation[0].ResStatus == "Reserved")

wrong = Client(f"{BASE}/wsdl", settings=settings, wsse=UsernameToken("DEMO", "not-the-password"))
answer = read(wrong, None)
check("a wrong password: an OTA Type 4 error in the envelope", answer.Errors is not None and str(answer.Errors.Error[0].Type) == "4", repr(answer.Errors))
print("ok")
