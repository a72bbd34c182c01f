"""What was decided about the alphas and what happened to them, kept in the shared database beside
the key store (SQLite or PostgreSQL, `records.sql`): promotions, events and webhook deliveries."""
