package ui

// cmdServe starts the server on this session (/serve [HOST:PORT]) and
// prints the page's address.
func (r *REPL) cmdServe(addr string) bool {
	if r.cfg.Serve == nil {
		r.out.note("/serve is not available here")
		return false
	}
	u, err := r.cfg.Serve(addr, r.sess)
	if err != nil {
		r.out.fail("serve: " + err.Error())
		return false
	}
	r.out.println(r.out.bold.Sprint("web page: ") + u)
	r.out.note("the page follows this session live and may answer its questions; turns start here")
	return false
}
