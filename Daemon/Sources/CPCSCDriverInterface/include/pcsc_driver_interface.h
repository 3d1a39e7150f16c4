// What a pcsc-lite reader driver (an IFD handler, API version 3) shares with pcscd, declared
// from pcsc-lite's documented interface (ifdhandler.h, debuglog.h) so that building the
// driver needs no pcsc-lite headers: the types as pcsc-lite defines them on Linux (a DWORD
// is an unsigned long), and pcscd's log.
#ifndef CARDREADERKIT_PCSC_DRIVER_INTERFACE_H
#define CARDREADERKIT_PCSC_DRIVER_INTERFACE_H

/// A PC/SC double word: pcsc-lite's DWORD, an unsigned long on Linux.
typedef unsigned long PCSCDriverWord;

/// What every IFDH function answers: pcsc-lite's RESPONSECODE.
typedef long PCSCDriverResponse;

/// The protocol header SCardTransmit passes along: pcsc-lite's SCARD_IO_HEADER, passed to
/// IFDHTransmitToICC by value.
typedef struct {
    PCSCDriverWord Protocol;
    PCSCDriverWord Length;
} PCSCDriverIOHeader;

/// pcscd's log priorities (debuglog.h).
enum {
    PCSCDriverLogDebug = 0,
    PCSCDriverLogInfo = 1,
    PCSCDriverLogError = 2,
    PCSCDriverLogCritical = 3,
};

/// Writes `message` to pcscd's log with `priority` through pcscd's own `log_msg`, found in
/// the process at run time; nothing when the host is not pcscd (a test loading the driver).
void pcsc_driver_log(int priority, const char *message);

#endif
