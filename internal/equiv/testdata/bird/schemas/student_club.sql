CREATE TABLE event
(
    event_id TEXT
        primary key,
    event_name TEXT,
    event_date TEXT,
    type TEXT,
    notes TEXT,
    location TEXT,
    status TEXT
);

CREATE TABLE major
(
    major_id TEXT
        primary key,
    major_name TEXT,
    department TEXT,
    college TEXT
);

CREATE TABLE zip_code
(
    zip_code INTEGER
        primary key,
    type TEXT,
    city TEXT,
    county TEXT,
    state TEXT,
    short_state TEXT
);

CREATE TABLE attendance
(
    link_to_event TEXT,
    link_to_member TEXT,
    primary key (link_to_event, link_to_member)
    foreign key (link_to_member) references member (member_id)
    foreign key (link_to_event) references event (event_id)
);

CREATE TABLE budget
(
    budget_id TEXT
        primary key,
    category TEXT,
    spent REAL,
    remaining REAL,
    amount INTEGER,
    event_status TEXT,
    link_to_event TEXT,
    foreign key (link_to_event) references event (event_id)
);

CREATE TABLE expense
(
    expense_id TEXT
        primary key,
    expense_description TEXT,
    expense_date TEXT,
    cost REAL,
    approved TEXT,
    link_to_member TEXT,
    link_to_budget TEXT,
    foreign key (link_to_member) references member (member_id)
    foreign key (link_to_budget) references budget (budget_id)
);

CREATE TABLE income
(
    income_id TEXT
        primary key,
    date_received TEXT,
    amount INTEGER,
    source TEXT,
    notes TEXT,
    link_to_member TEXT,
    foreign key (link_to_member) references member (member_id)
);

CREATE TABLE member
(
    member_id TEXT
        primary key,
    first_name TEXT,
    last_name TEXT,
    email TEXT,
    position TEXT,
    t_shirt_size TEXT,
    phone TEXT,
    zip INTEGER,
    link_to_major TEXT,
    foreign key (zip) references zip_code (zip_code)
    foreign key (link_to_major) references major (major_id)
);
