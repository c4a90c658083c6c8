// Command gen regenerates internal/fakeai/testdata/chat_schemas.json from
// the official OpenAI spec in shared/openai-openapi (found by searching
// upward from the working directory), so the fake's tests need no shared/.
//
//	go run ./internal/fakeai/gen            # from anywhere in the repo
//	go generate ./internal/fakeai/
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aci-dev/aci/internal/fakeai"
)

func main() {
	spec := flag.String("spec", "", "path to openapi.json (default: search upward for "+fakeai.SharedSpecPath+")")
	out := flag.String("out", "", "output file (default: internal/fakeai/testdata/chat_schemas.json of this module)")
	flag.Parse()
	if err := run(*spec, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(spec, out string) error {
	if spec == "" {
		if spec = fakeai.FindSharedSpec("."); spec == "" {
			return fmt.Errorf("%s not found above the working directory; pass -spec", fakeai.SharedSpecPath)
		}
	}
	if out == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		out = filepath.Join(root, "internal", "fakeai", "testdata", "chat_schemas.json")
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return err
	}
	gen, err := fakeai.GenerateSchemas(data)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, gen) {
		fmt.Println("gen:", out, "is up to date")
		return nil
	}
	if err := os.WriteFile(out, gen, 0o644); err != nil {
		return err
	}
	fmt.Printf("gen: wrote %s (%d bytes) from %s\n", out, len(gen), spec)
	return nil
}

// moduleRoot finds go.mod upward, so the command works from any directory
// (go generate runs it in internal/fakeai, a developer in the repo root).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found; pass -out")
		}
		dir = parent
	}
}
