select count(*) from singer
select count(*) from singer
select singer.name , singer.country , singer.age from singer   order by singer.age desc
select singer.name , singer.country , singer.age from singer   order by singer.age desc
select avg(singer.age) , min(singer.age) , max(singer.age) from singer where  singer.country = "France"
select avg(singer.age) , min(singer.age) , max(singer.age) from singer where  singer.country = "France"
select singer.song_name , singer.song_release_year from singer   order by singer.age asc limit 1
select singer.song_name , singer.song_release_year from singer   order by singer.age asc limit 1
select distinct singer.country from singer where  singer.age > 20
select distinct singer.country from singer where  singer.age > 20
select singer.country , count(*) from singer  group by singer.country
select singer.country , count(*) from singer  group by singer.country
select singer.song_name from singer where  singer.age > (select avg(singer.age) from singer  )
select singer.song_name from singer where  singer.age > (select avg(singer.age) from singer  )
select stadium.location , stadium.name from stadium where  stadium.capacity between 5000 and 10000
select stadium.location , stadium.name from stadium where  stadium.capacity between 5000 and 10000
select max(stadium.capacity) , avg(stadium.capacity) from stadium
select avg(stadium.capacity) , max(stadium.capacity) from stadium
select stadium.name , stadium.capacity from stadium  group by stadium.name  order by avg(stadium.average) desc limit 1
select stadium.name , stadium.capacity from stadium  group by stadium.name  order by avg(stadium.average) desc limit 1
select count(*) from concert where  concert.year = 2014 or concert.year = 2015
select count(*) from concert where  concert.year = 2014 or concert.year = 2015
select stadium.name , count(*) from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID  group by concert.stadium_id
select stadium.name , count(*) from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID  group by concert.stadium_id
select stadium.name , stadium.capacity from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year >= 2014  group by concert.stadium_id  order by count(*) desc limit 1
select stadium.name , stadium.capacity from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year > 2013  group by stadium.stadium_id  order by count(*) desc limit 1
select concert.year from concert  group by concert.year  order by count(*) desc limit 1
select concert.year from concert  group by concert.year  order by count(*) desc limit 1
select stadium.name from stadium where  stadium.stadium_id not in (select concert.Stadium_ID from concert  )
select stadium.name from stadium where  stadium.stadium_id not in (select concert.Stadium_ID from concert  )
select singer.country from singer where  singer.age > 40   intersect select singer.country from singer where  singer.age < 30
select stadium.name from stadium   except select stadium.name from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2014
select stadium.name from stadium   except select stadium.name from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2014
select concert.concert_name , concert.theme , count(*) from singer_in_concert join concert on singer_in_concert.concert_ID = concert.concert_ID  group by concert.concert_name
select concert.concert_name , concert.theme , count(*) from singer_in_concert join concert on singer_in_concert.concert_ID = concert.concert_ID  group by concert.concert_name
select singer.name , count(*) from singer_in_concert join singer on singer_in_concert.Singer_ID = singer.Singer_ID  group by singer.name
select singer.name , count(*) from singer_in_concert join singer on singer_in_concert.Singer_ID = singer.Singer_ID  group by singer.name
select singer.name from singer_in_concert join singer on singer_in_concert.Singer_ID = singer.Singer_ID join concert on singer_in_concert.concert_ID = concert.concert_ID where  concert.year = 2014
select singer.name from singer_in_concert join singer on singer_in_concert.Singer_ID = singer.Singer_ID join concert on singer_in_concert.concert_ID = concert.concert_ID where  concert.year = 2014
select singer.name , singer.country from singer where  singer.song_name like "%Hey%"
select singer.name , singer.country from singer where  singer.song_name like "%Hey%"
select stadium.name , stadium.location from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2014   intersect select stadium.name , stadium.location from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2015
select stadium.name , stadium.location from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2014   intersect select stadium.name , stadium.location from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  concert.year = 2015
select count(*) from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  stadium.capacity = (select max(stadium.Capacity) from stadium  )
select count(*) from concert join stadium on concert.Stadium_ID = stadium.Stadium_ID where  stadium.capacity = (select max(stadium.Capacity) from stadium  )
select count(*) from Pets where  pets.weight > 10
select count(*) from Pets where  pets.weight > 10
select pets.weight from Pets where  pets.pettype = "dog"   order by pets.pet_age asc limit 1
select pets.weight from Pets where  pets.pet_age = "dog"   order by pets.pet_age asc limit 1
select max(pets.weight) , pets.pettype from Pets  group by pets.pettype
select max(pets.weight) , pets.pettype from Pets  group by pets.pettype
select count(*) from Has_Pet join Student on Has_Pet.StuID = Student.StuID where  student.age > 20
select count(*) from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  student.age > 20
select count(*) from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  student.sex = "F" and pets.pettype = "dog"
select count(*) from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  student.sex = "F" and pets.pettype = "dog"
select count( distinct pets.pettype) from Pets
select count( distinct pets.pettype) from Pets
select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat" or pets.pettype = "dog"
select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat" or pets.pettype = "dog"
select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"   intersect select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "dog"
select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"   intersect select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "dog"
select student.major , student.age from Student   except select student.major , student.age from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"
select student.major , student.age from Student   except select student.major , student.age from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"
select student.stuid from Student   except select student.stuid from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"
select student.stuid from Student   except select student.stuid from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "cat"
select student.fname , student.age from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "dog" and pets.pettype != "cat"
select student.fname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pettype = "dog" and pets.pettype != "cat"
select pets.pettype , pets.weight from Pets   order by pets.pet_age asc limit 1
select pets.pettype , pets.weight from Pets   order by pets.pet_age asc limit 1
select pets.petid , pets.weight from Pets where  pets.pet_age > 1
select pets.petid , pets.weight from Pets where  pets.pet_age > 1
select pets.pettype , avg(pets.pet_age) , max(pets.pet_age) from Pets  group by pets.pettype
select pets.pettype , avg(pets.pet_age) , max(pets.pet_age) from Pets  group by pets.pettype
select pets.pettype , avg(pets.weight) from Pets  group by pets.pettype
select pets.pettype , avg(pets.weight) from Pets  group by pets.pettype
select distinct student.fname , student.age from Has_Pet join Student on Has_Pet.StuID = Student.StuID
select distinct student.fname , student.age from Has_Pet join Student on Has_Pet.StuID = Student.StuID
select has_pet.petid from Has_Pet join Student on Has_Pet.StuID = Student.StuID where  student.lname = "Smith"
select has_pet.petid from Has_Pet join Student on Has_Pet.StuID = Student.StuID where  student.lname = "Smith"
select count(*) , has_pet.stuid from Has_Pet  group by has_pet.stuid
select count(*) , has_pet.stuid from Has_Pet  group by has_pet.stuid
select student.fname , student.sex from Has_Pet join Student on Has_Pet.StuID = Student.StuID  group by has_pet.stuid having  count(*) > 1
select student.fname , student.sex from Has_Pet join Student on Has_Pet.StuID = Student.StuID  group by has_pet.stuid having  count(*) > 1
select student.lname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pet_age = 3 and pets.pettype = "cat"
select student.lname from Has_Pet join Student on Has_Pet.StuID = Student.StuID join Pets on Has_Pet.PetID = Pets.PetID where  pets.pet_age = 3 and pets.pettype = "cat"
select avg(student.age) from Student where  student.stuid not in (select Has_Pet.StuID from Has_Pet  )
select avg(student.age) from Student where  student.stuid not in (select Has_Pet.StuID from Has_Pet  )
select count(*) from continents
select count(*) from continents
select continents.contid , continents.continent , count(*) from countries join continents on countries.Continent = continents.ContId  group by continents.contid
select continents.continent , countries.countryname , count(*) from countries join continents on countries.Continent = continents.ContId  group by continents.continent
select count(*) from countries
select count(*) from countries
select car_makers.fullname , car_makers.maker , count(*) from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.maker
select car_makers.fullname , car_makers.id , count(*) from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.id
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model   order by cars_data.horsepower asc limit 1
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model   order by cars_data.horsepower asc limit 1
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  cars_data.weight < (select avg(cars_data.Weight) from cars_data  )
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  cars_data.weight < (select avg(cars_data.Weight) from cars_data  )
select car_makers.maker from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  cars_data.year = 1970
select distinct car_makers.maker from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  cars_data.year = 1970
select car_names.make , cars_data.year from cars_data join car_names on cars_data.Id = car_names.MakeId   order by cars_data.year asc limit 1
select car_makers.maker , cars_data.year from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id   order by cars_data.year asc limit 1
select distinct model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  cars_data.year > 1980
select distinct model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  cars_data.year > 1980
select continents.continent , count(*) from car_makers join countries on car_makers.Country = countries.CountryId join continents on countries.Continent = continents.ContId  group by continents.continent
select continents.continent , count(*) from car_makers join countries on car_makers.Country = countries.CountryId join continents on countries.Continent = continents.ContId  group by continents.continent
select countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId  group by countries.countryname  order by count(*) desc limit 1
select countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId  group by car_makers.country  order by count(*) desc limit 1
select count(*) , car_makers.fullname from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.maker
select count(*) , car_makers.id , car_makers.fullname from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.id
select cars_data.accelerate from cars_data join car_names on cars_data.Id = car_names.MakeId where  car_names.make = "amc hornet sportabout (sw)"
select cars_data.accelerate from cars_data join car_names on cars_data.Id = car_names.MakeId where  car_names.make = "amc hornet sportabout (sw)"
select count(*) from car_makers join countries on car_makers.Country = countries.CountryId where  countries.countryname = "france"
select count(*) from car_makers join countries on car_makers.Country = countries.CountryId where  countries.countryname = "france"
select count(*) from model_list join car_makers on model_list.Maker = car_makers.Id join countries on car_makers.Country = countries.CountryId where  countries.countryname = "usa"
select count(*) from model_list join car_makers on model_list.Maker = car_makers.Id where  car_makers.country = "USA"
select avg(cars_data.mpg) from cars_data where  cars_data.cylinders = 4
select avg(cars_data.mpg) from cars_data where  cars_data.cylinders = 4
select min(cars_data.weight) from cars_data where  cars_data.year = 1974 and cars_data.cylinders = 8
select min(cars_data.weight) from cars_data where  cars_data.year = 1974 and cars_data.cylinders = 8
select car_makers.maker , model_list.model from model_list join car_makers on model_list.Maker = car_makers.Id
select car_makers.maker , model_list.model from model_list join car_makers on model_list.Maker = car_makers.Id
select countries.countryname , car_makers.id from car_makers join countries on car_makers.Country = countries.CountryId
select countries.countryname , countries.countryid from car_makers join countries on car_makers.Country = countries.CountryId
select count(*) from cars_data where  cars_data.horsepower > 150
select count(*) from cars_data where  cars_data.horsepower > 150
select avg(cars_data.weight) , cars_data.year from cars_data  group by cars_data.year
select avg(cars_data.weight) , cars_data.year from cars_data  group by cars_data.year
select countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId join continents on countries.Continent = continents.ContId where  continents.continent = "europe"  group by countries.countryname having  count(*) >= 3
select countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId join continents on countries.Continent = continents.ContId where  continents.continent = "europe"  group by countries.countryname having  count(*) >= 3
select max(cars_data.horsepower) , car_names.make from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.cylinders = 3
select max(cars_data.horsepower) , car_names.make from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.cylinders = 3  group by car_names.make  order by max(cars_data.horsepower) desc limit 1
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model   order by cars_data.mpg desc limit 1
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model   order by cars_data.mpg desc limit 1
select avg(cars_data.horsepower) from cars_data where  cars_data.year < 1980
select avg(cars_data.horsepower) from cars_data where  cars_data.year < 1980
select avg(cars_data.edispl) from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  model_list.model = "volvo"
select avg(cars_data.edispl) from cars_data join car_names on cars_data.Id = car_names.MakeId where  car_names.model = "volvo"
select max(cars_data.accelerate) , cars_data.cylinders from cars_data  group by cars_data.cylinders
select max(cars_data.accelerate) , cars_data.cylinders from cars_data  group by cars_data.cylinders
select model_list.model from car_names join model_list on car_names.Model = model_list.Model  group by car_names.make  order by count(*) desc limit 1
select model_list.model from model_list  group by model_list.model  order by count(*) desc limit 1
select count(*) from cars_data where  cars_data.cylinders > 4
select count(*) from cars_data where  cars_data.cylinders > 4
select count(*) from cars_data where  cars_data.year = 1980
select count(*) from cars_data where  cars_data.year = 1980
select count(*) from model_list join car_makers on model_list.Maker = car_makers.Id where  car_makers.fullname = "American Motor Company"
select count(*) from model_list join car_makers on model_list.Maker = car_makers.Id where  car_makers.fullname = "American Motor Company"
select car_makers.fullname , car_makers.id from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.id having  count(*) > 3
select car_makers.maker , car_makers.id from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.maker having  count(*) > 3
select distinct model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  car_makers.fullname = "General Motors" or cars_data.weight > 3500
select distinct model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  car_makers.fullname = "General Motors" or cars_data.weight > 3500
select cars_data.year from cars_data where  cars_data.weight between 3000 and 4000
select distinct cars_data.year from cars_data where  cars_data.weight < 4000 and cars_data.weight > 3000
select cars_data.horsepower from cars_data   order by cars_data.accelerate desc limit 1
select cars_data.horsepower from cars_data   order by cars_data.accelerate desc limit 1
select cars_data.cylinders from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  model_list.model = "volvo"   order by cars_data.accelerate asc limit 1
select cars_data.cylinders from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model where  model_list.model = "volvo"   order by cars_data.accelerate asc limit 1
select count(*) from cars_data where  cars_data.accelerate > (select max(cars_data.accelerate) from cars_data  )
select count(*) from cars_data where  cars_data.accelerate > (select max(cars_data.accelerate) from cars_data  )
select count(*) from car_makers  group by car_makers.Id having  count(*) > 2
select count(*) from car_makers  group by car_makers.Id having  count(*) > 2
select count(*) from cars_data where  cars_data.cylinders > 6
select count(*) from cars_data where  cars_data.cylinders > 6
select car_names.model from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.cylinders = 4   order by cars_data.horsepower desc limit 1
select car_names.model from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.cylinders = 4   order by cars_data.horsepower desc limit 1
select car_names.makeid , car_names.make from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.horsepower > (select min(cars_data.Horsepower) from cars_data where  cars_data.cylinders > 3  )
select car_names.make , car_names.model from cars_data join car_names on cars_data.Id = car_names.MakeId where  cars_data.cylinders < 4
select max(cars_data.mpg) from cars_data where  cars_data.cylinders = 8 or cars_data.year < 1980
select max(cars_data.mpg) from cars_data where  cars_data.cylinders = 8 or cars_data.year < 1980
select model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  cars_data.weight < 3500 and car_makers.fullname != "Ford Motor Company"
select distinct model_list.model from cars_data join car_names on cars_data.Id = car_names.MakeId join model_list on car_names.Model = model_list.Model join car_makers on model_list.Maker = car_makers.Id where  cars_data.weight < 3500 and car_makers.fullname != "Ford Motor Company"
select countries.countryname from countries where  countries.countryid not in (select car_makers.Country from car_makers  )
select countries.countryname from countries where  countries.countryid not in (select car_makers.Country from car_makers  )
select car_makers.id , car_makers.maker from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.id having  count(*) >= 2
select car_makers.id , car_makers.maker from model_list join car_makers on model_list.Maker = car_makers.Id  group by car_makers.id having  count(*) >= 2
select countries.countryid , countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId  group by countries.countryid having  count(*) > 3  union select countries.countryid , countries.countryname from model_list join car_makers on model_list.Maker = car_makers.Id join countries on car_makers.Country = countries.CountryId where  model_list.model = "fiat"
select countries.countryid , countries.countryname from car_makers join countries on car_makers.Country = countries.CountryId  group by countries.countryid having  count(*) > 3  union select countries.countryid , countries.countryname from model_list join car_makers on model_list.Maker = car_makers.Id join countries on car_makers.Country = countries.CountryId where  model_list.model = "Fiat"
