package netproxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
)

// Upstream names the proxy, if any, through which aci itself reaches a
// URL (nil, nil: directly). By default it is the one aci's own environment
// names (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), so that where the internet is
// reachable only through a proxy of the person's, allowed hosts still are.
type Upstream func(target *url.URL) (*url.URL, error)

// fromEnvironment is http.ProxyFromEnvironment for a bare URL.
func fromEnvironment(target *url.URL) (*url.URL, error) {
	return http.ProxyFromEnvironment(&http.Request{URL: target})
}

// SetUpstream replaces how the proxy finds an upstream proxy (nil: none,
// always direct). Call it before Serve.
func (p *Proxy) SetUpstream(u Upstream) { p.upstream = u }

// dialTunnel opens a raw connection to host:port, through the upstream
// proxy's CONNECT when there is one.
func (p *Proxy) dialTunnel(ctx context.Context, hostPort string) (net.Conn, error) {
	if p.upstream == nil {
		return p.dialer.DialContext(ctx, "tcp", hostPort)
	}
	up, err := p.upstream(&url.URL{Scheme: "https", Host: hostPort})
	if err != nil {
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	if up == nil {
		return p.dialer.DialContext(ctx, "tcp", hostPort)
	}
	if up.Scheme != "http" {
		return nil, fmt.Errorf("upstream proxy %s: only http:// proxies are supported", up.Redacted())
	}
	addr := up.Host
	if up.Port() == "" {
		addr = net.JoinHostPort(up.Hostname(), "80")
	}
	c, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: hostPort}, Host: hostPort, Header: http.Header{}}
	if u := up.User; u != nil {
		pw, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s: CONNECT %s: %s", up.Redacted(), hostPort, resp.Status)
	}
	if br.Buffered() > 0 {
		// The upstream proxy sent bytes of the tunnel along with its answer.
		return &bufferedConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// bufferedConn reads what a bufio.Reader still holds before the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
