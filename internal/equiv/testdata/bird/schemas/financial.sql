CREATE TABLE account
(
    account_id INTEGER
        primary key,
    district_id INTEGER,
    frequency TEXT,
    date DATE,
    foreign key (district_id) references district (district_id)
);

CREATE TABLE card
(
    card_id INTEGER
        primary key,
    disp_id INTEGER,
    type TEXT,
    issued DATE,
    foreign key (disp_id) references disp (disp_id)
);

CREATE TABLE client
(
    client_id INTEGER
        primary key,
    gender TEXT,
    birth_date DATE,
    district_id INTEGER,
    foreign key (district_id) references district (district_id)
);

CREATE TABLE disp
(
    disp_id INTEGER
        primary key,
    client_id INTEGER,
    account_id INTEGER,
    type TEXT,
    foreign key (client_id) references client (client_id)
    foreign key (account_id) references account (account_id)
);

CREATE TABLE district
(
    district_id INTEGER
        primary key,
    A2 TEXT,
    A3 TEXT,
    A4 TEXT,
    A5 TEXT,
    A6 TEXT,
    A7 TEXT,
    A8 INTEGER,
    A9 INTEGER,
    A10 REAL,
    A11 INTEGER,
    A12 REAL,
    A13 REAL,
    A14 INTEGER,
    A15 INTEGER,
    A16 INTEGER
);

CREATE TABLE loan
(
    loan_id INTEGER
        primary key,
    account_id INTEGER,
    date DATE,
    amount INTEGER,
    duration INTEGER,
    payments REAL,
    status TEXT,
    foreign key (account_id) references account (account_id)
);

CREATE TABLE `order`
(
    order_id INTEGER
        primary key,
    account_id INTEGER,
    bank_to TEXT,
    account_to INTEGER,
    amount REAL,
    k_symbol TEXT,
    foreign key (account_id) references account (account_id)
);

CREATE TABLE trans
(
    trans_id INTEGER
        primary key,
    account_id INTEGER,
    date DATE,
    type TEXT,
    operation TEXT,
    amount INTEGER,
    balance INTEGER,
    k_symbol TEXT,
    bank TEXT,
    account INTEGER,
    foreign key (account_id) references account (account_id)
);
