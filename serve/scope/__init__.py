"""What a key may read and the alpha a request addresses: a key made a reader's scope (`readable`), the addressed alpha authorised then found (`resolve`)."""
