package main

import (
	"fmt"
	"io"
	"os"

	"github.com/aci-dev/aci/internal/otlp"
)

// startTelemetry starts the OTLP exporter when the OTEL_EXPORTER_OTLP_*
// variables of the environment ask for one (never .env's: a workspace must
// not send a session's activity to a server it names). It returns nil
// when nothing is to be sent; a send that fails is said once on stderr.
func startTelemetry(stderr io.Writer) (*otlp.Exporter, error) {
	cfg, ok, err := otlp.FromEnv(os.Getenv)
	if err != nil || !ok {
		return nil, err
	}
	return otlp.New(cfg, func(err error) {
		fmt.Fprintf(stderr, "aci: %v (the run goes on)\n", err)
	}), nil
}
