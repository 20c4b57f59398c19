package sink

func serveSMTP(sc *svcConn) {}
