package sse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	stream := ": a comment\n\n" +
		"id: 7\nevent: text\ndata: {\"text\":\"a\"}\n\n" +
		"data: no type: passed over\n\n" +
		"event: result\ndata: {\"x\":\ndata: 1}\n\n" +
		"event: cut\ndata: {}" // no blank line: the stream ended mid-event
	var got []Event
	if err := Read(strings.NewReader(stream), func(ev Event) { got = append(got, ev) }); err != nil {
		t.Fatal(err)
	}
	want := []Event{{ID: 7, Type: "text", Data: `{"text":"a"}`}, {Type: "result", Data: `{"x":1}`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %+v, want %+v", got, want)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestReadSaysTheReadersError(t *testing.T) {
	if err := Read(failing{}, func(Event) { t.Error("an event from nothing") }); err == nil || err.Error() != "connection reset" {
		t.Errorf("err = %v", err)
	}
}
