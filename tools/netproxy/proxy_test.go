package netproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aci-dev/aci/internal/loopback"
)

// origin is a real HTTP(S) server on a loopback address that counts its
// requests.
type origin struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newOrigin(t *testing.T, ip string, tlsOn bool, h http.HandlerFunc) *origin {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", ip, err)
	}
	o := &origin{}
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path) }
	}
	o.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		h(w, r)
	}))
	o.srv.Listener = ln
	if tlsOn {
		o.srv.StartTLS()
	} else {
		o.srv.Start()
	}
	t.Cleanup(o.srv.Close)
	return o
}

func (o *origin) hostPort() string { return o.srv.Listener.Addr().String() }

// serve runs a Proxy with allow on a loopback listener, as the sandbox's
// link would hand it one command's connections.
func serve(t *testing.T, allow []string, deny []string, ask Asker) (*Served, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Policy{Allow: mustRules(t, allow...), Deny: mustRules(t, deny...)}).Serve(ln, ask)
	t.Cleanup(func() { s.Close() })
	return s, ln.Addr().String()
}

// client goes through the proxy, trusts the test servers' certificates,
// and follows redirects as curl -L does.
func client(proxyAddr string) *http.Client {
	pu, _ := url.Parse("http://" + proxyAddr)
	return &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProxyForwards(t *testing.T) {
	ok := newOrigin(t, "127.0.0.2", false, nil)
	okTLS := newOrigin(t, "127.0.0.2", true, nil)
	far := newOrigin(t, "127.0.0.3", false, nil)
	farTLS := newOrigin(t, "127.0.0.3", true, nil)
	rec := &loopback.Asker{}
	s, addr := serve(t, []string{ok.hostPort(), okTLS.hostPort()}, nil, rec.Ask)
	c := client(addr)

	for _, tc := range []struct {
		name, url string
		code      int
		body      string
	}{
		{"plain HTTP to an allowed host", "http://" + ok.hostPort() + "/a", 200, "hello from " + ok.hostPort() + "/a"},
		{"CONNECT to an allowed host", "https://" + okTLS.hostPort() + "/b", 200, "hello from " + okTLS.hostPort() + "/b"},
		{"plain HTTP to a host off the list", "http://" + far.hostPort() + "/", 403, "not on the allow list"},
		{"CONNECT to a host off the list", "https://" + farTLS.hostPort() + "/", 0, "Forbidden"},
	} {
		code, body := get(t, c, tc.url)
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q, want %d and %q", tc.name, code, body, tc.code, tc.body)
		}
	}
	if far.hits.Load()+farTLS.hits.Load() != 0 {
		t.Error("a refused host was reached")
	}
	if q := rec.Questions(); len(q) != 2 || q[0] != far.hostPort() || q[1] != farTLS.hostPort() {
		t.Errorf("asked %q, want the two hosts off the list", q)
	}
	if d := s.Denied(); len(d) != 2 {
		t.Errorf("Denied() = %q", d)
	}
	// The answer holds for the rest of the command: no second question.
	get(t, c, "http://"+far.hostPort()+"/again")
	if q := rec.Questions(); len(q) != 2 {
		t.Errorf("asked again: %q", q)
	}
}

func TestProxyAskAllows(t *testing.T) {
	far := newOrigin(t, "127.0.0.3", true, nil)
	rec := &loopback.Asker{}
	rec.Allow(true)
	_, addr := serve(t, nil, nil, rec.Ask)
	if code, body := get(t, client(addr), "https://"+far.hostPort()+"/x"); code != 200 {
		t.Fatalf("allowed by the person: %d %q", code, body)
	}
}

// Concurrent connections of one command to one unknown host ask once.
func TestProxyAsksOnce(t *testing.T) {
	far := newOrigin(t, "127.0.0.3", false, nil)
	rec := &loopback.Asker{}
	rec.Allow(true)
	_, addr := serve(t, nil, nil, rec.Ask)
	c := client(addr)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(t, c, "http://"+far.hostPort()+"/")
		}()
	}
	wg.Wait()
	if q := rec.Questions(); len(q) != 1 {
		t.Errorf("asked %d times", len(q))
	}
}

// The proxy does not follow redirects: the client does, and each hop is
// judged on its own.
func TestProxyRedirectJudgedPerHop(t *testing.T) {
	far := newOrigin(t, "127.0.0.3", false, nil)
	ok := newOrigin(t, "127.0.0.2", false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+far.hostPort()+"/stolen?data=secret", http.StatusFound)
	})
	rec := &loopback.Asker{}
	_, addr := serve(t, []string{ok.hostPort()}, nil, rec.Ask)
	code, body := get(t, client(addr), "http://"+ok.hostPort()+"/")
	if code != 403 || far.hits.Load() != 0 {
		t.Errorf("redirect to a host off the list: %d %q, far hits %d", code, body, far.hits.Load())
	}
	if q := rec.Questions(); len(q) != 1 || q[0] != far.hostPort() {
		t.Errorf("asked %q", q)
	}
}

// A deny rule refuses without asking, even a host the person allowed.
func TestProxyDenyList(t *testing.T) {
	far := newOrigin(t, "127.0.0.3", false, nil)
	rec := &loopback.Asker{}
	rec.Allow(true)
	_, addr := serve(t, []string{far.hostPort()}, []string{"127.0.0.3:*"}, rec.Ask)
	if code, body := get(t, client(addr), "http://"+far.hostPort()+"/"); code != 403 || !strings.Contains(body, "deny list") {
		t.Errorf("%d %q", code, body)
	}
	if len(rec.Questions()) != 0 || far.hits.Load() != 0 {
		t.Error("a denied host was asked about or reached")
	}
}

// A client that does not know it talks to a proxy sends an origin-form
// request; the Host header alone must not open the way.
func TestProxyUnawareClient(t *testing.T) {
	far := newOrigin(t, "127.0.0.3", false, nil)
	rec := &loopback.Asker{}
	rec.Allow(true)
	_, addr := serve(t, nil, nil, rec.Ask)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: %s\r\nContent-Length: 6\r\n\r\nsecret", far.hostPort())
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || far.hits.Load() != 0 || len(rec.Questions()) != 0 {
		t.Errorf("origin-form request: %d, far hits %d, asked %q", resp.StatusCode, far.hits.Load(), rec.Questions())
	}
	// Bytes that are not HTTP at all get nowhere either.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.Write([]byte("\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03 raw TLS hello\r\n\r\n"))
	b, _ := io.ReadAll(c2)
	if !strings.HasPrefix(string(b), "HTTP/1.1 400") || far.hits.Load() != 0 {
		t.Errorf("raw bytes: %q", b)
	}
}

func TestProxyIPv6AndPorts(t *testing.T) {
	v6 := newOrigin(t, "::1", false, nil)
	other := newOrigin(t, "::1", false, nil)
	rec := &loopback.Asker{}
	_, addr := serve(t, []string{v6.hostPort()}, nil, rec.Ask)
	c := client(addr)
	if code, body := get(t, c, "http://"+v6.hostPort()+"/"); code != 200 {
		t.Errorf("allowed IPv6 host: %d %q", code, body)
	}
	if code, _ := get(t, c, "http://"+other.hostPort()+"/"); code != 403 || other.hits.Load() != 0 {
		t.Errorf("same address, another port: %d", code)
	}
	if q := rec.Questions(); len(q) != 1 || q[0] != other.hostPort() {
		t.Errorf("asked %q", q)
	}
}

// Close ends the tunnels a command left open.
func TestProxyCloseEndsTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	s, addr := serve(t, []string{ln.Addr().String()}, nil, nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", ln.Addr())
	br := bufio.NewReader(c)
	line, _ := br.ReadString('\n')
	if !strings.Contains(line, "200") {
		t.Fatalf("CONNECT: %q", line)
	}
	br.ReadString('\n') // the blank line that ends the answer
	s.Close()
	if _, err := br.ReadByte(); err == nil {
		t.Error("the tunnel outlived Close")
	}
}

// Where aci itself must go through a proxy of the person's, allowed
// requests and tunnels go through it too.
func TestProxyChainsToUpstream(t *testing.T) {
	origin := newOrigin(t, "127.0.0.2", false, nil)
	originTLS := newOrigin(t, "127.0.0.2", true, nil)
	upRec := &loopback.Asker{}
	upRec.Allow(true)
	_, upAddr := serve(t, nil, nil, upRec.Ask) // the person's proxy: asks, says yes
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Policy{Allow: mustRules(t, origin.hostPort(), originTLS.hostPort())})
	p.SetUpstream(func(*url.URL) (*url.URL, error) { return &url.URL{Scheme: "http", Host: upAddr}, nil })
	s := p.Serve(ln, nil)
	defer s.Close()
	c := client(ln.Addr().String())
	for _, u := range []string{"http://" + origin.hostPort() + "/p", "https://" + originTLS.hostPort() + "/t"} {
		if code, body := get(t, c, u); code != 200 || !strings.Contains(body, "hello from") {
			t.Errorf("%s through the upstream proxy: %d %q", u, code, body)
		}
	}
	if q := upRec.Questions(); len(q) != 2 {
		t.Errorf("the upstream proxy saw %q, want both requests", q)
	}
}
