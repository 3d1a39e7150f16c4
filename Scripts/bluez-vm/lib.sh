# shellcheck shell=bash disable=SC2034
# Shared settings of the bluez-vm scripts. Sourced, not executed.

BLUEZ_VM_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$BLUEZ_VM_SCRIPTS/../.." && pwd -P)"
VM_DIR="$REPO_ROOT/.build-vm"

# Debian packages the harness needs on the host (the guest uses the host's /usr).
BLUEZ_VM_PACKAGES=(qemu-system-x86 bluez bluez-test-tools dbus busybox-static kmod
    libdbus-1-3 cpio python3 python3-dbus python3-gi curl xz-utils patch gcc libc6-dev)

# btvirt is built from this BlueZ release with Scripts/bluez-vm/btvirt-common-handle.patch
# (several links from one central); the tarball is Debian's, checked by its SHA-256.
BLUEZ_VM_BTVIRT_SOURCE=http://deb.debian.org/debian/pool/main/b/bluez/bluez_5.66.orig.tar.xz
BLUEZ_VM_BTVIRT_SOURCE_SHA256=a231fb9d151780edf6d2536c81914e2dbd3daa36b68f486badaf98a7f34021e4

# Kernel modules loaded by the initramfs (their dependencies are added by prepare):
# virtio + 9p for the mounts; then, because every process start costs ~0.1-0.4 s under
# TCG, the Bluetooth stack and the crypto that it and btvirt need (AF_ALG for btvirt,
# drbg/sha512/ctr which the kernel would otherwise request one modprobe at a time).
BLUEZ_VM_INITRD_MODULES=(virtio_pci 9pnet_virtio 9p virtio_rng
    sha512_ssse3 ctr drbg ecdh_generic bluetooth hci_vhci bnep
    algif_hash algif_skcipher cmac ecb)

bvm_log() { printf '[bluez-vm] %s\n' "$*" >&2; }
bvm_die() { printf '[bluez-vm] error: %s\n' "$*" >&2; exit 2; }
