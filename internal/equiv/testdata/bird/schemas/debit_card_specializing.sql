CREATE TABLE customers
(
    CustomerID INTEGER
        primary key,
    Segment TEXT,
    Currency TEXT
);

CREATE TABLE gasstations
(
    GasStationID INTEGER
        primary key,
    ChainID INTEGER,
    Country TEXT,
    Segment TEXT
);

CREATE TABLE products
(
    ProductID INTEGER
        primary key,
    Description TEXT
);

CREATE TABLE transactions_1k
(
    TransactionID INTEGER
        primary key,
    Date DATE,
    Time TEXT,
    CustomerID INTEGER,
    CardID INTEGER,
    GasStationID INTEGER,
    ProductID INTEGER,
    Amount INTEGER,
    Price REAL
);

CREATE TABLE yearmonth
(
    CustomerID INTEGER,
    Date TEXT,
    Consumption REAL,
    primary key (CustomerID, Date)
    foreign key (CustomerID) references customers (CustomerID)
);
