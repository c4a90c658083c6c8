package windows

import (
	"context"
	"testing"

	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/settings"
)

// The approver chain: deny rules first (the front end is not asked), then
// allow rules and a hook's allow; an "always" answer becomes a rule that
// covers the same question (same reason) and no wider one.
func TestApproverRules(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	set, _ := rules.Load(t.TempDir(), settings.Policy{Person: settings.Permissions{
		Deny: []settings.Entry{{Pattern: "bash:git push", Source: "s"}}}})
	asked := 0
	front := ApproverFunc(func(ctx context.Context, req ApprovalRequest) Decision {
		asked++
		return Decision{Allow: true, Always: true}
	})
	a := &sessionApprover{next: front, always: map[string]bool{}, prefixes: map[string][]string{}, rules: set}
	ctx := context.Background()
	req := func(cmd, why string) ApprovalRequest {
		return ApprovalRequest{Kind: "command", Subject: cmd, Reason: cmd + ": " + why}
	}
	if d := a.Approve(ctx, req("git push origin main", "publishes")); d.Allow || asked != 0 {
		t.Fatalf("deny rule: %+v, asked %d", d, asked)
	}
	a.Approve(ctx, req("npm test", "runs scripts"))
	if a.Approve(ctx, req("npm test", "runs scripts")); asked != 1 {
		t.Errorf("the session rule did not cover the same question: asked %d", asked)
	}
	if a.Approve(ctx, req("npm test", "sends the workspace elsewhere")); asked != 2 {
		t.Errorf("a rule covered another reason: asked %d", asked)
	}
	a.Approve(ctx, req("rm -f build/*", "deletes"))
	if a.Approve(ctx, req("rm -f build/../../x", "deletes")); asked != 4 {
		t.Errorf("an exact answer with * was widened: asked %d", asked)
	}
	if d := a.Approve(WithHookDecision(ctx, "allow"), req("make deploy", "deploys")); !d.Allow || asked != 4 {
		t.Errorf("a hook's allow did not answer: %+v, asked %d", d, asked)
	}
	if d := a.Approve(WithHookDecision(ctx, "allow"), req("git push", "publishes")); d.Allow {
		t.Error("a hook's allow beat a deny rule")
	}
}
