-- The demo database of sqljudge: a small bookshop. Built into a temporary
-- SQLite file by `sqljudge eval --demo`; written for sqljudge, no external data.
CREATE TABLE author (
  author_id INTEGER PRIMARY KEY,
  name      TEXT NOT NULL,
  country   TEXT,
  born      INTEGER
);
CREATE TABLE book (
  book_id   INTEGER PRIMARY KEY,
  title     TEXT NOT NULL,
  author_id INTEGER NOT NULL REFERENCES author(author_id),
  genre     TEXT NOT NULL,
  year      INTEGER,
  price     REAL NOT NULL
);
CREATE TABLE customer (
  customer_id INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  city        TEXT NOT NULL,
  joined      DATE NOT NULL
);
CREATE TABLE purchase (
  purchase_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customer(customer_id),
  book_id     INTEGER NOT NULL REFERENCES book(book_id),
  quantity    INTEGER NOT NULL,
  bought_on   DATE NOT NULL
);

INSERT INTO author VALUES
  (1, 'Ursula K. Le Guin', 'USA', 1929),
  (2, 'Italo Calvino', 'Italy', 1923),
  (3, 'Chinua Achebe', 'Nigeria', 1930),
  (4, 'Wisława Szymborska', 'Poland', 1923),
  (5, 'Octavia E. Butler', 'USA', 1947),
  (6, 'Haruki Murakami', 'Japan', 1949),
  (7, 'Anonymous', NULL, NULL);

INSERT INTO book VALUES
  (1, 'The Left Hand of Darkness', 1, 'science fiction', 1969, 12.5),
  (2, 'The Dispossessed', 1, 'science fiction', 1974, 13.0),
  (3, 'A Wizard of Earthsea', 1, 'fantasy', 1968, 9.99),
  (4, 'Invisible Cities', 2, 'fiction', 1972, 11.0),
  (5, 'If on a Winter''s Night a Traveler', 2, 'fiction', 1979, 14.0),
  (6, 'Things Fall Apart', 3, 'fiction', 1958, 10.0),
  (7, 'View with a Grain of Sand', 4, 'poetry', 1995, 15.0),
  (8, 'Kindred', 5, 'science fiction', 1979, 11.5),
  (9, 'Parable of the Sower', 5, 'science fiction', 1993, 12.0),
  (10, 'Kafka on the Shore', 6, 'fiction', 2002, 16.0),
  (11, 'Norwegian Wood', 6, 'fiction', 1987, 13.0),
  (12, 'Beowulf', 7, 'poetry', NULL, 8.0);

INSERT INTO customer VALUES
  (1, 'Ada', 'Lisbon', '2021-03-01'),
  (2, 'Bruno', 'Porto', '2021-07-15'),
  (3, 'Chioma', 'Lisbon', '2022-01-09'),
  (4, 'Dmitri', 'Braga', '2022-05-20'),
  (5, 'Eun-ji', 'Porto', '2023-02-11'),
  (6, 'Farah', 'Faro', '2023-08-30');

INSERT INTO purchase VALUES
  (1, 1, 1, 1, '2023-01-05'),
  (2, 1, 8, 2, '2023-01-05'),
  (3, 2, 4, 1, '2023-02-10'),
  (4, 3, 6, 1, '2023-02-14'),
  (5, 3, 10, 1, '2023-03-01'),
  (6, 4, 2, 3, '2023-03-17'),
  (7, 5, 9, 1, '2023-04-02'),
  (8, 5, 11, 2, '2023-04-02'),
  (9, 2, 7, 1, '2023-05-21'),
  (10, 1, 3, 1, '2023-06-30'),
  (11, 4, 10, 1, '2023-07-04'),
  (12, 3, 1, 2, '2023-08-12');
