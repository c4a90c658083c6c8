package web_test

import (
	"context"
	"testing"

	"github.com/aci-dev/aci/internal/browsertest"
)

// browser starts a headless Chromium for the test (skipping it, saying
// why, where none is installed) and returns a tab's context.
func browser(t *testing.T) context.Context { return browsertest.Start(t) }
