// Minimal C implementations of the framing hot paths, the references the framing
// benchmark measures the SDK against in the same run. Written from the reader's
// documentation (§2: STX, MAIN, SUB, LEN big-endian, DATA, CRC-16/CCITT-FALSE big-endian
// over MAIN..DATA), not from the SDK.
#ifndef FRAMING_REFERENCE_H
#define FRAMING_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/// CRC-16/CCITT-FALSE with one 256-entry table, one byte per step.
uint16_t reference_crc16_byte_table(const uint8_t *bytes, size_t count);

/// CRC-16/CCITT-FALSE sliced by 8: eight tables, eight bytes per step.
uint16_t reference_crc16_slicing_by_8(const uint8_t *bytes, size_t count);

/// Encodes one frame into `out` (room for `data_count + 7` bytes), its CRC sliced by 8;
/// returns its length.
size_t reference_encode_frame(uint8_t main, uint8_t sub, const uint8_t *data, size_t data_count, uint8_t *out);

/// A reassembler for notifications: hunts STX, waits for the declared length, checks the
/// CRC with the byte table, and copies each frame's DATA into a new heap buffer handed to
/// the consumer (which frees it). On a bad length or CRC it gives up the STX and hunts
/// again from the next byte.
typedef struct reference_reassembler reference_reassembler;

reference_reassembler *reference_reassembler_create(void);
void reference_reassembler_destroy(reference_reassembler *reassembler);

/// Feeds one notification; returns the number of frames it completed.
size_t reference_reassembler_feed(reference_reassembler *reassembler, const uint8_t *bytes, size_t count);

#endif
