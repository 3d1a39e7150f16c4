print("cardreaderctl")
