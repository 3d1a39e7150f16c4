/*
 * libFuzzer's entry for programs that have their own main() (LLVM 11 and later), linked in
 * by -sanitize=fuzzer. SwiftPM names an executable's entry point <module>_main on Linux and
 * aliases main to it, so libFuzzer's own main() is never used: each target's
 * <module>_main calls this instead.
 */
#ifndef CARDREADERKIT_CLIBFUZZER_H
#define CARDREADERKIT_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
