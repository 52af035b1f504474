# gdm3_lib.sh — Debian 13 booted with Debian's gdm3 48 (gnome13_test.sh,
# gnome_shell13_test.sh): one layer, and gdm's daemon running with no login
# screen of its own. Sourced after booted_lib.sh (WORK, layer, boot, end_with).
#
#   * Layer: gdm3 (with --no-install-recommends it brings gnome-shell 48, gjs
#     and about 550 packages, ~1.1 GB) and libpam-fprintd (pam_fprintd, and
#     fprintd, which D-Bus activates), installed once over the cached Debian
#     13 tree (`container_layer trixie gdm3 …`, kept in
#     $PINGATE_TEST_CACHE/layers).
#   * gdm: its daemon (gdm.service) runs from the boot on, as on a desktop:
#     GNOME Shell builds its lock screen only when gdm answers on the system
#     bus, and gdm runs the lock screen's PAM conversations. With Debian's
#     daemon.conf gdm would, ~10 s after it starts, try an X11 login screen
#     on seat0 (no Wayland here), find no session desktop files, abort
#     (SIGTRAP) and be restarted by systemd, again and again, each time with
#     a new greeter session on seat0 — beside alice's. So the boot starts
#     with WaylandEnable=false and XorgEnable=false under [daemon]: gdm then
#     says "Preferred display server is none, so not creating display" and
#     stays idle. The file is put in place before the boot, in the boot's
#     own overlay upper dir, so gdm never reads Debian's.

GDM3_LAYER_PACKAGES=(gdm3 libpam-fprintd)

# boot_gdm3 [COMMANDS]: this test's Debian 13 with the gdm3 layer and the
# daemon.conf above, booted; its exit trap runs COMMANDS (ending the
# sessions the test started), then end_with's poweroff. (Not in $(…): the
# container goes with the subshell that booted it.)
boot_gdm3() {
    need_deb
    layer trixie gdm3 "${GDM3_LAYER_PACKAGES[@]}"
    local upper
    upper="$(mktemp -d "$WORK/gdm3-upper.XXXXXX")"
    mkdir -p "$upper/upper/etc/gdm3"
    sed 's/^\[daemon\]$/&\nWaylandEnable=false\nXorgEnable=false/' "$LAYER/etc/gdm3/daemon.conf" \
        > "$upper/upper/etc/gdm3/daemon.conf"
    grep -q '^XorgEnable=false$' "$upper/upper/etc/gdm3/daemon.conf" || fail "no [daemon] section in gdm3's daemon.conf"
    boot trixie --layer "$LAYER" --upper "$upper"
    end_with "${1:-:}"
}

# gdm_idle: prints gdm.service's state, its restarts and the sessions on
# seat0, by user ("gdm: active, 0 restarts, seat0 sessions: none").
gdm_idle() {
    ct_sh <<'EOF'
seat0="$(loginctl list-sessions --no-legend | awk '$4 == "seat0" {print $3}' | tr '\n' ' ')"
echo "gdm: $(systemctl is-active gdm.service), $(systemctl show gdm.service -p NRestarts --value) restarts, seat0 sessions: ${seat0:-none}"
EOF
}
