package sink

func serveMySQL(sc *svcConn) {}
func serveRedis(sc *svcConn) {}
func serveSMTP(sc *svcConn)  {}
