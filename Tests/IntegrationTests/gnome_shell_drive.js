// gnome_shell_drive.js — what gnome_shell13_test.sh does to the real GNOME
// Shell 48 inside the container, as alice, on her session bus: lock it, read
// its unlock dialog, type on it, take a picture. Run by the container's gjs
// (gnome-shell's layer): gjs -m gnome_shell_drive.js STEP [ARG...]
//
//   lock          org.gnome.ScreenSaver.Lock, then a key that raises the dialog
//                 (Control_L: it types nothing; again each second until the
//                 dialog is there), then `watch`
//   submit TEXT   TEXT and Return; once the dialog took the answer, `watch`
//   enter TEXT    TEXT and Return; waits (15 s) for the shield's
//                 ActiveChanged(false): "unlocked in MS ms" (Return's press to
//                 the signal, both on this clock), else "still locked" and state
//   shot FILE     org.gnome.Shell.Screenshot of the whole screen into FILE
//   state         the dialog as Eval reads it, one JSON line (STATE)
//
// `watch` prints what the dialog shows until it asks: each line under the
// entry as it appears (MESSAGE text; GNOME shows each for a time that
// grows with its length, so polling every 40 ms sees them all), then the
// question (HINT text: the entry's hint) once the entry is empty, takes
// keys and every message has had its time; NOT ASKED and the state after
// 30 s; NO DIALOG when the shield is no longer active (unlocked).
//
// Keys go in through org.gnome.Mutter.RemoteDesktop (CreateSession, Start,
// NotifyKeyboardKeysym): a remote-desktop session lives as long as the D-Bus
// connection that made it, so everything runs on this process's one
// connection. Mutter presses Shift itself for a keysym on the shifted level.
// The first key on the lock screen's clock raises the dialog (unlockDialog.js
// takes a printable key as the first character of the answer): `lock` presses
// Control_L, which raises it and types nothing.
//
// Reading needs gnome-shell's --unsafe-mode: org.gnome.Shell.Eval runs the
// expression in STATE inside the shell, and Screenshot is refused to other
// callers. "unlocked" is never taken from Eval or asked for: only the
// shield's own signal after typing counts (ScreenSaver.SetActive(false)
// would unlock without any authentication).

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import {exit} from 'system';

const bus = Gio.DBus.session;
const RD = 'org.gnome.Mutter.RemoteDesktop';
// The shell's screen shield answers org.gnome.ScreenSaver under this name.
const SHIELD = 'org.gnome.Shell.ScreenShield';

function call(dest, path, iface, method, params, reply = null) {
    return bus.call_sync(dest, path, iface, method, params,
        reply ? new GLib.VariantType(reply) : null, Gio.DBusCallFlags.NO_AUTO_START, 10000, null);
}
const active = () => call(SHIELD, '/org/gnome/ScreenSaver',
    'org.gnome.ScreenSaver', 'GetActive', null, '(b)').deepUnpack()[0];

// The unlock dialog's prompt (gnome-shell 48's js/gdm/authPrompt.js): the
// entry's hint (the PAM question), the line under it (_message, when shown),
// what is typed, whether the entry takes keys, the service whose question
// waits (none after a failure, until the next conversation asks), and
// whether messages still wait their turn (ShellUserVerifier holds an answer
// until each message has been shown long enough to read).
const STATE = `(() => {
    const prompt = Main.screenShield._dialog?._authPrompt;
    if (!prompt)
        return {dialog: false, active: Main.screenShield.active};
    return {
        dialog: true, active: Main.screenShield.active,
        hint: prompt._entry.hint_text ?? '',
        message: prompt._message.visible && prompt._message.opacity > 0 ? prompt._message.text : '',
        typed: prompt._entry.text.length, reactive: prompt._entry.reactive,
        asking: prompt._queryingService ?? '',
        messagesPending: prompt._userVerifier?.hasPendingMessages ?? false,
    };
})()`;
function state() {
    const [ok, json] = call('org.gnome.Shell', '/org/gnome/Shell', 'org.gnome.Shell', 'Eval',
        new GLib.Variant('(s)', [STATE]), '(bs)').deepUnpack();
    if (!ok)
        throw new Error(`Eval failed (is gnome-shell in --unsafe-mode?): ${json}`);
    return JSON.parse(json);
}

let session = null;
function key(keysym) {
    if (!session) {
        [session] = call(RD, '/org/gnome/Mutter/RemoteDesktop', RD, 'CreateSession', null, '(o)').deepUnpack();
        call(RD, session, `${RD}.Session`, 'Start', null);
    }
    for (const pressed of [true, false])
        call(RD, session, `${RD}.Session`, 'NotifyKeyboardKeysym', new GLib.Variant('(ub)', [keysym, pressed]));
}
const CONTROL_L = 0xffe3, RETURN = 0xff0d;
function type(text) {
    for (const c of text)   // Latin-1 keysyms are the characters' codes
        key(c.codePointAt(0));
}
function stop() {
    if (session)
        call(RD, session, `${RD}.Session`, 'Stop', null);
}
// asked: a question waits in the entry, which takes keys, empty.
const asked = s => s.dialog && s.reactive && s.asking !== '' && s.hint !== '' && s.typed === 0;
function waitFor(what, seconds) {
    const end = GLib.get_monotonic_time() + seconds * 1e6;
    for (;;) {
        const value = what();
        if (value || GLib.get_monotonic_time() > end)
            return value;
        GLib.usleep(50000);
    }
}

function watch() {
    let shown = '';
    const end = GLib.get_monotonic_time() + 30e6;
    for (;;) {
        const s = state();
        if (!s.active) {
            print(`NO DIALOG ${JSON.stringify(s)}`);
            return;
        }
        if (s.message !== '' && s.message !== shown)
            print(`MESSAGE ${s.message}`);
        shown = s.message;
        if (asked(s) && !s.messagesPending) {
            print(`HINT ${s.hint}`);
            return;
        }
        if (GLib.get_monotonic_time() > end) {
            print(`NOT ASKED ${JSON.stringify(s)}`);
            return;
        }
        GLib.usleep(40000);
    }
}

const [step, arg] = ARGV;
switch (step) {
case 'lock':
    call(SHIELD, '/org/gnome/ScreenSaver', 'org.gnome.ScreenSaver', 'Lock', null);
    if (!waitFor(active, 10)) {
        print('NOT LOCKED');
        break;
    }
    // The key goes in as the lock screen comes up; pressed again each
    // second until the dialog is there, as a person would.
    for (let i = 0; i < 5 && !state().dialog; i++) {
        key(CONTROL_L);
        waitFor(() => state().dialog, 1);
    }
    stop();
    watch();
    break;
case 'submit':
    type(arg);
    key(RETURN);
    stop();
    // taken: the entry gave up the keys, or was emptied for what came next
    waitFor(() => {
        const s = state();
        return !s.dialog || !s.reactive || s.typed === 0;
    }, 5);
    watch();
    break;
case 'enter': {
    const loop = new GLib.MainLoop(null, false);
    let unlockedAt = 0;
    bus.signal_subscribe(SHIELD, 'org.gnome.ScreenSaver', 'ActiveChanged',
        '/org/gnome/ScreenSaver', null, Gio.DBusSignalFlags.NONE, (c, s, p, i, n, params) => {
            if (!params.deepUnpack()[0]) {
                unlockedAt = GLib.get_real_time();
                loop.quit();
            }
        });
    type(arg);
    const returned = GLib.get_real_time();
    key(RETURN);
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 15000, () => loop.quit());
    loop.run();
    if (unlockedAt && !active())
        print(`unlocked in ${Math.round((unlockedAt - returned) / 1000)} ms`);
    else
        print(`still locked: ${JSON.stringify(state())}`);
    stop();
    break;
}
case 'shot': {
    const [ok] = call('org.gnome.Shell', '/org/gnome/Shell/Screenshot', 'org.gnome.Shell.Screenshot',
        'Screenshot', new GLib.Variant('(bbs)', [false, false, arg]), '(bs)').deepUnpack();
    print(ok ? 'shot' : 'no screenshot');
    break;
}
case 'state':
    print(JSON.stringify(state()));
    break;
default:
    printerr(`gnome_shell_drive.js: unknown step ${step}`);
    exit(2);
}
