CREATE TABLE alignment
(
    id INTEGER
        primary key,
    alignment TEXT
);

CREATE TABLE attribute
(
    id INTEGER
        primary key,
    attribute_name TEXT
);

CREATE TABLE colour
(
    id INTEGER
        primary key,
    colour TEXT
);

CREATE TABLE gender
(
    id INTEGER
        primary key,
    gender TEXT
);

CREATE TABLE publisher
(
    id INTEGER
        primary key,
    publisher_name TEXT
);

CREATE TABLE race
(
    id INTEGER
        primary key,
    race TEXT
);

CREATE TABLE superhero
(
    id INTEGER
        primary key,
    superhero_name TEXT,
    full_name TEXT,
    gender_id INTEGER,
    eye_colour_id INTEGER,
    hair_colour_id INTEGER,
    skin_colour_id INTEGER,
    race_id INTEGER,
    publisher_id INTEGER,
    alignment_id INTEGER,
    height_cm INTEGER,
    weight_kg INTEGER,
    foreign key (skin_colour_id) references colour (id)
    foreign key (hair_colour_id) references colour (id)
    foreign key (eye_colour_id) references colour (id)
    foreign key (race_id) references race (id)
    foreign key (publisher_id) references publisher (id)
    foreign key (gender_id) references gender (id)
    foreign key (alignment_id) references alignment (id)
);

CREATE TABLE hero_attribute
(
    hero_id INTEGER,
    attribute_id INTEGER,
    attribute_value INTEGER,
    foreign key (hero_id) references superhero (id)
    foreign key (attribute_id) references attribute (id)
);

CREATE TABLE superpower
(
    id INTEGER
        primary key,
    power_name TEXT
);

CREATE TABLE hero_power
(
    hero_id INTEGER,
    power_id INTEGER,
    foreign key (power_id) references superpower (id)
    foreign key (hero_id) references superhero (id)
);
