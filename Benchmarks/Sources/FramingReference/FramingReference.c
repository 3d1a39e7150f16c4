#include "FramingReference.h"

#include <stdlib.h>
#include <string.h>

enum { STX = 0x02, HEADER = 5, OVERHEAD = 7, MAX_DATA = 1024, MAX_FRAME = MAX_DATA + OVERHEAD };

static uint16_t tables[8][256];
static int tables_ready;

static void build_tables(void) {
    if (tables_ready) return;
    for (int byte = 0; byte < 256; byte++) {
        uint16_t crc = (uint16_t)(byte << 8);
        for (int bit = 0; bit < 8; bit++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
        tables[0][byte] = crc;
    }
    for (int slice = 1; slice < 8; slice++)
        for (int byte = 0; byte < 256; byte++) {
            uint16_t previous = tables[slice - 1][byte];
            tables[slice][byte] = (uint16_t)((previous << 8) ^ tables[0][previous >> 8]);
        }
    tables_ready = 1;
}

static uint16_t crc_update(uint16_t crc, const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) crc = (uint16_t)((crc << 8) ^ tables[0][(uint8_t)(crc >> 8) ^ bytes[i]]);
    return crc;
}

uint16_t reference_crc16_byte_table(const uint8_t *bytes, size_t count) {
    build_tables();
    return crc_update(0xFFFF, bytes, count);
}

static uint16_t slicing_update(uint16_t crc, const uint8_t *bytes, size_t count) {
    while (count >= 8) {
        crc = tables[7][bytes[0] ^ (crc >> 8)] ^ tables[6][bytes[1] ^ (crc & 0xFF)] ^ tables[5][bytes[2]]
            ^ tables[4][bytes[3]] ^ tables[3][bytes[4]] ^ tables[2][bytes[5]] ^ tables[1][bytes[6]]
            ^ tables[0][bytes[7]];
        bytes += 8;
        count -= 8;
    }
    return crc_update(crc, bytes, count);
}

uint16_t reference_crc16_slicing_by_8(const uint8_t *bytes, size_t count) {
    build_tables();
    return slicing_update(0xFFFF, bytes, count);
}

size_t reference_encode_frame(uint8_t main, uint8_t sub, const uint8_t *data, size_t data_count, uint8_t *out) {
    build_tables();
    out[0] = STX;
    out[1] = main;
    out[2] = sub;
    out[3] = (uint8_t)(data_count >> 8);
    out[4] = (uint8_t)data_count;
    memcpy(out + HEADER, data, data_count);
    uint16_t crc = slicing_update(0xFFFF, out + 1, data_count + 4);
    out[HEADER + data_count] = (uint8_t)(crc >> 8);
    out[HEADER + data_count + 1] = (uint8_t)crc;
    return data_count + OVERHEAD;
}

struct reference_reassembler {
    uint8_t buffer[2 * MAX_FRAME];
    size_t count;
};

reference_reassembler *reference_reassembler_create(void) {
    build_tables();
    return calloc(1, sizeof(reference_reassembler));
}

void reference_reassembler_destroy(reference_reassembler *reassembler) { free(reassembler); }

volatile uint8_t reference_sink;

/// The consumer's part: it owns DATA, looks at it and releases it. Out of line, so the
/// compiler cannot drop the allocation and the copy.
__attribute__((noinline)) static void consume(uint8_t *data, size_t length) {
    if (length) reference_sink ^= data[length - 1];
    free(data);
}

/// Drops the first `count` buffered bytes.
static void drop(reference_reassembler *r, size_t count) {
    memmove(r->buffer, r->buffer + count, r->count - count);
    r->count -= count;
}

size_t reference_reassembler_feed(reference_reassembler *r, const uint8_t *bytes, size_t count) {
    size_t frames = 0;
    while (count > 0) {
        size_t room = sizeof r->buffer - r->count;
        size_t taken = count < room ? count : room;
        memcpy(r->buffer + r->count, bytes, taken);
        r->count += taken;
        bytes += taken;
        count -= taken;
        for (;;) {
            uint8_t *stx = memchr(r->buffer, STX, r->count);
            if (!stx) { r->count = 0; break; }
            if (stx != r->buffer) drop(r, (size_t)(stx - r->buffer));
            if (r->count < HEADER) break;
            size_t length = (size_t)r->buffer[3] << 8 | r->buffer[4];
            if (length > MAX_DATA) { drop(r, 1); continue; }
            if (r->count < length + OVERHEAD) break;
            uint16_t crc = crc_update(0xFFFF, r->buffer + 1, length + 4);
            uint16_t received = (uint16_t)(r->buffer[HEADER + length] << 8 | r->buffer[HEADER + length + 1]);
            if (crc != received) { drop(r, 1); continue; }
            uint8_t *data = malloc(length ? length : 1);
            memcpy(data, r->buffer + HEADER, length);
            consume(data, length);
            frames++;
            drop(r, length + OVERHEAD);
        }
    }
    return frames;
}
