package sink

func serveRedis(sc *svcConn) {}
func serveSMTP(sc *svcConn)  {}
