# shellcheck shell=bash
# Shared settings of the bluez-vm scripts. Sourced, not executed.

BLUEZ_VM_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$BLUEZ_VM_SCRIPTS/../.." && pwd -P)"
VM_DIR="$REPO_ROOT/.build-vm"

# Debian packages the harness needs on the host (the guest uses the host's /usr).
BLUEZ_VM_PACKAGES=(qemu-system-x86 bluez bluez-test-tools dbus busybox-static kmod
    libdbus-1-dev cpio python3 python3-dbus python3-gi)

# Kernel modules loaded by the initramfs (their dependencies are added by prepare).
BLUEZ_VM_INITRD_MODULES=(virtio_pci 9pnet_virtio 9p virtio_rng)

bvm_log() { printf '[bluez-vm] %s\n' "$*" >&2; }
bvm_die() { printf '[bluez-vm] error: %s\n' "$*" >&2; exit 2; }
