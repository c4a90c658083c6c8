package ui

import (
	"testing"
	"time"
)

// Esc pressed twice is one pair, whether both come in one read or one
// after the other soon enough; other keys starting with Esc are not.
func TestEscPair(t *testing.T) {
	var e escPair
	if _, ok := e.pair([]byte("\x1b\x1b"), false); !ok {
		t.Error("Esc Esc in one read")
	}
	if _, ok := e.pair([]byte("\x1b"), false); ok {
		t.Error("one Esc is a pair")
	}
	if _, ok := e.pair([]byte("\x1b"), false); !ok {
		t.Error("the second Esc")
	}
	e.pair([]byte("\x1b"), false)
	e.pair([]byte("\x1b[A"), false) // an arrow between them
	if _, ok := e.pair([]byte("\x1b"), false); ok {
		t.Error("Esc, an arrow, Esc is a pair")
	}
	e = escPair{last: time.Now().Add(-2 * escPairWindow)}
	if _, ok := e.pair([]byte("\x1b"), false); ok {
		t.Error("an Esc long after the first is a pair")
	}
	if _, ok := e.pair([]byte("\x1b\x1b"), true); ok {
		t.Error("Esc Esc inside a paste is a pair")
	}
}

func TestFocusReportsAreTakenOut(t *testing.T) {
	f := &focusState{}
	if f.focused() {
		t.Error("focused before any report")
	}
	if got := string(f.strip([]byte("ab\x1b[Icd"))); got != "abcd" || !f.focused() {
		t.Errorf("strip = %q, focused %v", got, f.focused())
	}
	if got := string(f.strip([]byte("\x1b[O"))); got != "" || f.focused() {
		t.Errorf("strip = %q, focused %v", got, f.focused())
	}
	if got := string(f.strip([]byte("\x1b[A"))); got != "\x1b[A" {
		t.Errorf("an arrow became %q", got)
	}
}

func TestNotifierModes(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		env  func(string) string
		mode string
	}{
		{env(), "bell"},
		{env("TERM_PROGRAM", "iTerm.app"), "osc9"},
		{env("TERM_PROGRAM", "WezTerm"), "osc9"},
		{env("TERM_PROGRAM", "ghostty"), "osc9"},
		{env("KITTY_WINDOW_ID", "1"), "osc9"},
		{env("WT_SESSION", "x"), "osc9"},
		{env("TERM_PROGRAM", "Apple_Terminal"), "bell"},
		{env("ACI_NOTIFY", "OFF", "TERM_PROGRAM", "iTerm.app"), "off"},
		{env("ACI_NOTIFY", "osc9"), "osc9"},
		{env("ACI_NOTIFY", "notify-send aci"), "program"},
	} {
		if n := newNotifier(tc.env, nil, nil, nil); n.mode != tc.mode {
			t.Errorf("%v: mode %s, want %s", tc.env("TERM_PROGRAM")+tc.env("ACI_NOTIFY"), n.mode, tc.mode)
		}
	}
}
